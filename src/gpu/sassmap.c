/* coalcheck gpu: parsing `nvdisasm -g` output into pc offset -> SASS text and source line.
 *
 * The lines that matter (nvdisasm 13, sm_90):
 *     .section  .text._Z9transposePfPKfi,"ax",@progbits
 *     //## File "/src/k.cu", line 4
 *     //## File "/src/k.cu", line 4 inlined at "/src/k.cu", line 9
 *     /<star>0070<star>/  @P0 LDG.E R5, desc[UR4][R2.64] ;
 * With -gi an "inlined at" line is followed by a plain line for its call site; the pair
 * gives the instruction the inlined location and the call site (see the parse loop).
 * Everything else (directives, labels, blank lines, other comments) is skipped. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu.h"
#include "util/mem.h"


static char *dup_n(const char *s, size_t n)
{
  char *d = malloc(n + 1);
  if (d == NULL)
    CC_BUG("out of memory");
  memcpy(d, s, n);
  d[n] = '\0';
  return d;
}

static const char *intern(struct cc_gpu_sassmap *m, const char *s, size_t n)
{
  for (size_t i = 0; i < m->n_files; i++)
    if (strlen(m->files[i]) == n && memcmp(m->files[i], s, n) == 0)
      return m->files[i];
  m->files = cc_xgrow(m->files, &m->cap_files, m->n_files + 1, sizeof *m->files);
  m->files[m->n_files] = dup_n(s, n);
  return m->files[m->n_files++];
}

static const char *skip_ws(const char *p, const char *end)
{
  while (p < end && (*p == ' ' || *p == '\t'))
    p++;
  return p;
}

static int starts(const char *p, const char *end, const char *lit)
{
  size_t n = strlen(lit);
  return (size_t)(end - p) >= n && memcmp(p, lit, n) == 0;
}

/* ".section .text.NAME,..." -> new function NAME */
static void parse_section(struct cc_gpu_sassmap *m, const char *p, const char *end)
{
  p = skip_ws(p + strlen(".section"), end);
  if (!starts(p, end, ".text."))
    return;
  p += strlen(".text.");
  const char *e = p;
  while (e < end && *e != ',' && *e != ' ' && *e != '\t')
    e++;
  m->funcs = cc_xgrow(m->funcs, &m->cap, m->n + 1, sizeof *m->funcs);
  struct cc_gpu_sass_func *f = &m->funcs[m->n++];
  memset(f, 0, sizeof *f);
  f->name = dup_n(p, (size_t)(e - p));
}

/* '//## File "F", line N [inlined at "G", line M]...' -> *file, *line, *inl_file, *inl_line */
static int parse_file_line(struct cc_gpu_sassmap *m, const char *p, const char *end,
                           const char **file, uint32_t *line, const char **inl_file,
                           uint32_t *inl_line, const char *origin, size_t lineno,
                           struct cc_err *err)
{
  p = skip_ws(p + strlen("//##"), end);
  if (!starts(p, end, "File \""))
    return CC_OK; /* other //## annotations carry no line */
  p += strlen("File \"");
  const char *q = memchr(p, '"', (size_t)(end - p));
  if (q == NULL || !starts(q, end, "\", line "))
    return cc_err_set(err, CC_ERR_INPUT,
                      "%s:%zu: malformed line information, expected '//## File \"F\", line N'; "
                      "is this nvdisasm -g output?", origin, lineno);
  const char *num = q + strlen("\", line ");
  char *e;
  errno = 0;
  unsigned long v = strtoul(num, &e, 10);
  if (e == num || errno != 0 || v > UINT32_MAX)
    return cc_err_set(err, CC_ERR_INPUT,
                      "%s:%zu: malformed line number in line information; is this nvdisasm -g "
                      "output?", origin, lineno);
  *file = intern(m, p, (size_t)(q - p));
  *line = (uint32_t)v;
  m->has_lines = 1;
  *inl_file = NULL;
  *inl_line = 0;
  /* -gi: ' inlined at "G", line M', repeated outwards; keep the last that parses */
  for (const char *t = e; (t = memmem(t, (size_t)(end - t), "inlined at \"",
                                      strlen("inlined at \""))) != NULL;) {
    const char *g = t + strlen("inlined at \"");
    const char *gq = memchr(g, '"', (size_t)(end - g));
    char *ge;
    unsigned long m2;
    if (gq == NULL || !starts(gq, end, "\", line "))
      break;
    errno = 0;
    m2 = strtoul(gq + strlen("\", line "), &ge, 10);
    if (ge == gq + strlen("\", line ") || errno != 0 || m2 > UINT32_MAX)
      break;
    *inl_file = intern(m, g, (size_t)(gq - g));
    *inl_line = (uint32_t)m2;
    t = ge;
  }
  return CC_OK;
}

/* '/<star>0070<star>/  TEXT ;' -> an instruction of the current function */
static int parse_insn(struct cc_gpu_sassmap *m, const char *p, const char *end,
                      const char *file, uint32_t line, const char *inl_file,
                      uint32_t inl_line, const char *origin, size_t lineno,
                      struct cc_err *err)
{
  const char *num = p + 2;
  if (num < end && (*num == ' ' || *num == '\t'))
    return CC_OK; /* an encoding comment: slash-star, blank, 0x000fe40000000f00 */
  char *e;
  errno = 0;
  unsigned long v = strtoul(num, &e, 16);
  if (e == num || errno != 0 || v > UINT32_MAX || !starts(e, end, "*/"))
    return cc_err_set(err, CC_ERR_INPUT,
                      "%s:%zu: malformed instruction offset, expected '/*hex*/'; is this "
                      "nvdisasm output?", origin, lineno);
  if (m->n == 0)
    return cc_err_set(err, CC_ERR_INPUT,
                      "%s:%zu: instruction before any '.section .text.NAME' line; pass the "
                      "whole nvdisasm output", origin, lineno);
  const char *t = skip_ws(e + 2, end);
  const char *te = end;
  /* strip a trailing comment, the ';' and blanks */
  const char *c = t;
  while (c + 1 < te && !(c[0] == '/' && c[1] == '*'))
    c++;
  if (c + 1 < te)
    te = c;
  while (te > t && (te[-1] == ' ' || te[-1] == '\t' || te[-1] == ';' || te[-1] == '\r'))
    te--;
  if (te == t) /* a continuation line of raw encoding: no instruction */
    return CC_OK;
  struct cc_gpu_sass_func *f = &m->funcs[m->n - 1];
  f->insns = cc_xgrow(f->insns, &f->cap, f->n + 1, sizeof *f->insns);
  struct cc_gpu_sass_insn *in = &f->insns[f->n++];
  in->offset = (uint32_t)v;
  in->text = dup_n(t, (size_t)(te - t));
  in->file = file;
  in->line = line;
  in->inl_file = inl_file;
  in->inl_line = inl_line;
  return CC_OK;
}

int cc_gpu_sassmap_parse(struct cc_gpu_sassmap *map, const char *text, const char *origin,
                         struct cc_err *err)
{
  const char *file = NULL, *inl_file = NULL;
  uint32_t line = 0, inl_line = 0;
  size_t lineno = 0;
  int fresh = 0; /* a //## line was read and no instruction line since */
  for (const char *p = text; *p != '\0';) {
    const char *end = strchr(p, '\n');
    if (end == NULL)
      end = p + strlen(p);
    lineno++;
    const char *s = skip_ws(p, end);
    int st = CC_OK;
    if (starts(s, end, ".section")) {
      parse_section(map, s, end);
      file = inl_file = NULL;
      line = inl_line = 0;
    } else if (starts(s, end, "//##")) {
      const char *pf = file, *pif = inl_file;
      uint32_t pl = line, pil = inl_line;
      st = parse_file_line(map, s, end, &file, &line, &inl_file, &inl_line, origin, lineno,
                           err);
      /* -gi (nvdisasm 13) follows 'H, line 112 inlined at "k.cu", line 15' with 'k.cu,
       * line 15' itself: that second line is the call site already known, so the inlined
       * location stays (file names are interned: pointers compare) */
      if (st == CC_OK && fresh && pif && !inl_file && file == pif && line == pil) {
        file = pf, line = pl, inl_file = pif, inl_line = pil;
      }
      fresh = 1;
    } else if (starts(s, end, "/*")) {
      st = parse_insn(map, s, end, file, line, inl_file, inl_line, origin, lineno, err);
      fresh = 0;
    }
    if (st != CC_OK)
      return st;
    p = *end ? end + 1 : end;
  }
  return CC_OK;
}

const struct cc_gpu_sass_insn *cc_gpu_sassmap_find(const struct cc_gpu_sassmap *map,
                                                   const char *func, uint32_t offset)
{
  for (size_t i = 0; i < map->n; i++) {
    const struct cc_gpu_sass_func *f = &map->funcs[i];
    if (strcmp(f->name, func) != 0)
      continue;
    size_t lo = 0, hi = f->n; /* binary search: offsets ascend */
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (f->insns[mid].offset < offset)
        lo = mid + 1;
      else
        hi = mid;
    }
    if (lo < f->n && f->insns[lo].offset == offset)
      return &f->insns[lo];
    return NULL;
  }
  return NULL;
}

void cc_gpu_sassmap_release(struct cc_gpu_sassmap *map)
{
  for (size_t i = 0; i < map->n; i++) {
    for (size_t j = 0; j < map->funcs[i].n; j++)
      free(map->funcs[i].insns[j].text);
    free(map->funcs[i].insns);
    free(map->funcs[i].name);
  }
  free(map->funcs);
  for (size_t i = 0; i < map->n_files; i++)
    free(map->files[i]);
  free(map->files);
  memset(map, 0, sizeof *map);
}
