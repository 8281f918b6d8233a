/* Test harness for the bundled examples (tests/examples/test_*.c): runs the coalcheck
 * binary on a launch file with --dump of every buffer and --json, reads the dumps and the
 * JSON report back, and offers checks that print both values and what was checked.
 *
 * Environment: COALCHECK (the binary) and COALCHECK_SRC (the source tree), set by CTest.
 * A test program whose environment lacks them, or a machine without nvcc, skips (exit 77).
 *
 * The JSON field names used here are those of docs/json-schema.md: report.kernels[] with
 * name, totals{...} and instructions[] carrying ptx_index, source{file,line}, ptx, op,
 * space, size_bytes, requests, sectors, ideal_sectors, stride{min,max,avg}, all_stride,
 * verdict, suggestions[]. Every name is spelled once, in the JS_* macros below.
 *
 * Everything here is static: the header is included by one test program. */
#ifndef CC_TESTS_EXAMPLES_HARNESS_H
#define CC_TESTS_EXAMPLES_HARNESS_H

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

/* JSON names (docs/json-schema.md). */
#define JS_KERNELS "kernels"
#define JS_KNAME "name"
#define JS_TOTALS "totals"
#define JS_INSNS "instructions"
#define JS_PTX "ptx"
#define JS_SOURCE "source"
#define JS_LINE "line"
#define JS_REQUESTS "requests"
#define JS_SECTORS "sectors"
#define JS_IDEAL "ideal_sectors"
#define JS_SPR "sectors_per_request"
#define JS_TRANSACTIONS "transactions"
#define JS_BYTES_TRANSFERRED "bytes_transferred"
#define JS_EFFICIENCY "efficiency"
#define JS_STRIDE "stride"
#define JS_ALL_STRIDE "all_stride"
#define JS_LINE_ALL_STRIDE "line_all_stride"
#define JS_LINE_INSNS "line_instructions"
#define JS_INLINED_FROM "inlined_from"
#define JS_EMULATOR "emulator"
#define JS_VERDICT "verdict"
#define JS_SUGGESTIONS "suggestions"
#define JS_WAYS "bank_conflict_ways"
#define JS_WAVEFRONTS "wavefronts"
#define JS_IDEAL_WAVEFRONTS "ideal_wavefronts"
#define JS_T2_TOTAL "thread_accesses"
#define JS_T2_UNCOAL "uncoalesced_thread_accesses"

/* One kernel buffer: dumped after the run (data), optionally given as a file first
 * (init: the test's own contents, for buffers the kernel updates in place). */
struct ex_buffer {
  const char *name;      /* the kernel parameter name in the launch file */
  size_t elem_bytes;     /* 1, 2, 4, 8 */
  size_t count;          /* elements */
  const char *file_type; /* non-NULL: pass --arg 'NAME=FILE_TYPE:file:PATH' with init */
  void *init;            /* file_type: the initial contents (owned, count elements) */
  void *data;            /* after ex_run: the dumped contents (owned) */
};

struct ex_run {
  char dir[64];          /* temporary folder with report.json, dumps, stderr */
  cJSON *report;         /* the parsed JSON report (owned) */
};

/* ---- small utilities ------------------------------------------------------------ */

/* xorshift32 in [0, 1): the test's own data for buffers given by file. */
static float ex_rand01(uint32_t *state)
{
  uint32_t x = *state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  *state = x;
  return (float)(x >> 8) * (1.0f / 16777216.0f);
}

static void *ex_read_file(const char *path, size_t *len)
{
  FILE *fp = fopen(path, "rb");
  char *buf;
  long n;
  if (!fp)
    return NULL;
  if (fseek(fp, 0, SEEK_END) != 0 || (n = ftell(fp)) < 0 || fseek(fp, 0, SEEK_SET) != 0) {
    fclose(fp);
    return NULL;
  }
  buf = malloc((size_t)n + 1);
  assert_non_null(buf);
  if (fread(buf, 1, (size_t)n, fp) != (size_t)n) {
    free(buf);
    fclose(fp);
    return NULL;
  }
  buf[n] = '\0';
  fclose(fp);
  *len = (size_t)n;
  return buf;
}

static void ex_write_file(const char *path, const void *data, size_t len)
{
  FILE *fp = fopen(path, "wb");
  assert_non_null(fp);
  assert_int_equal(fwrite(data, 1, len, fp), len);
  assert_int_equal(fclose(fp), 0);
}

/* The 1-based line of the first line of examples/REL that contains snippet after the
 * first line containing anchor (a kernel's signature, so that the same statement in two
 * kernels is told apart; NULL: from the top, and then snippet must be unique). The
 * figures are checked per source line, so a moved line cannot silently pick another
 * access. */
static int ex_source_line(const char *rel, const char *anchor, const char *snippet)
{
  char path[1024];
  size_t len;
  char *text, *p, *line;
  int no = 1, found = 0, after = anchor == NULL;
  snprintf(path, sizeof path, "%s/examples/%s", getenv("COALCHECK_SRC"), rel);
  text = ex_read_file(path, &len);
  if (!text)
    fail_msg("cannot read %s", path);
  for (line = text; line && *line; no++) {
    p = strchr(line, '\n');
    if (p)
      *p = '\0';
    if (!after && strstr(line, anchor))
      after = 1;
    else if (after && strstr(line, snippet)) {
      if (found && !anchor)
        fail_msg("%s: '%s' on lines %d and %d: make the snippet unique", rel, snippet, found, no);
      if (!found)
        found = no;
    }
    line = p ? p + 1 : NULL;
  }
  free(text);
  if (!found)
    fail_msg("%s: no line contains '%s'%s%s", rel, snippet, anchor ? " after " : "",
             anchor ? anchor : "");
  return found;
}

/* Appends printf-style text to the command in cmd (cap bytes); fails when it is full.
 * Callers quote paths with single quotes (the tree and /tmp paths have none). */
static void ex_cat(char *cmd, size_t cap, const char *fmt, ...)
{
  size_t len = strlen(cmd);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(cmd + len, cap - len, fmt, ap);
  va_end(ap);
  if (strlen(cmd) + 1 >= cap)
    fail_msg("command line too long");
}

/* ---- the run ----------------------------------------------------------------------- */

/* Runs `coalcheck --launch examples/LAUNCH -q --json DIR/report.json` plus --dump NAME=...
 * for every buffer and --arg NAME=TYPE:file:... for the buffers with file_type, plus
 * extra (may be NULL: more options, already quoted). Fails the test unless the exit
 * status is 0, the report parses and every dump has count*elem_bytes bytes. */
static void ex_run(struct ex_run *r, const char *launch, struct ex_buffer *bufs, size_t nbufs,
                   const char *extra)
{
  char cmd[8192] = "";
  char path[256];
  size_t i, len;
  int status;
  char *json;

  memset(r, 0, sizeof *r);
  snprintf(r->dir, sizeof r->dir, "/tmp/cc-examples-XXXXXX");
  if (!mkdtemp(r->dir))
    fail_msg("mkdtemp: %s", strerror(errno));
  ex_cat(cmd, sizeof cmd, "'%s' --launch '%s/examples/%s' -q --json '%s/report.json'",
         getenv("COALCHECK"), getenv("COALCHECK_SRC"), launch, r->dir);
  for (i = 0; i < nbufs; i++) {
    ex_cat(cmd, sizeof cmd, " --dump '%s=%s/%s.out'", bufs[i].name, r->dir, bufs[i].name);
    if (bufs[i].file_type) {
      snprintf(path, sizeof path, "%s/%s.in", r->dir, bufs[i].name);
      ex_write_file(path, bufs[i].init, bufs[i].count * bufs[i].elem_bytes);
      ex_cat(cmd, sizeof cmd, " --arg '%s=%s:file:%s'", bufs[i].name, bufs[i].file_type, path);
    }
  }
  if (extra)
    ex_cat(cmd, sizeof cmd, " %s", extra);
  ex_cat(cmd, sizeof cmd, " >'%s/stdout.txt' 2>'%s/stderr.txt'", r->dir, r->dir);

  status = system(cmd);
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    char *err;
    snprintf(path, sizeof path, "%s/stderr.txt", r->dir);
    err = ex_read_file(path, &len);
    fail_msg("%s: coalcheck exited with %d (want 0)\ncommand: %s\nstderr: %s", launch,
             WIFEXITED(status) ? WEXITSTATUS(status) : -1, cmd, err ? err : "(none)");
  }
  for (i = 0; i < nbufs; i++) {
    snprintf(path, sizeof path, "%s/%s.out", r->dir, bufs[i].name);
    bufs[i].data = ex_read_file(path, &len);
    if (!bufs[i].data)
      fail_msg("%s: no dump of buffer %s at %s", launch, bufs[i].name, path);
    if (len != bufs[i].count * bufs[i].elem_bytes)
      fail_msg("%s: dump of %s has %zu bytes, expected %zu x %zu", launch, bufs[i].name, len,
               bufs[i].count, bufs[i].elem_bytes);
  }
  snprintf(path, sizeof path, "%s/report.json", r->dir);
  json = ex_read_file(path, &len);
  if (!json)
    fail_msg("%s: no JSON report at %s", launch, path);
  r->report = cJSON_Parse(json);
  if (!r->report)
    fail_msg("%s: %s is not JSON (near '%.40s')", launch, path,
             cJSON_GetErrorPtr() ? cJSON_GetErrorPtr() : "?");
  free(json);
}

/* Runs `coalcheck --launch examples/LAUNCH -q` plus extra (already quoted) and returns
 * its exit status (-1: it did not exit normally); *err receives its standard error (the
 * caller frees it). For the error-path tests: nothing is dumped or parsed. */
static int ex_run_status(const char *launch, const char *extra, char **err)
{
  char cmd[4096] = "", dir[64], path[128];
  size_t len;
  int status;
  snprintf(dir, sizeof dir, "/tmp/cc-examples-XXXXXX");
  if (!mkdtemp(dir))
    fail_msg("mkdtemp: %s", strerror(errno));
  snprintf(path, sizeof path, "%s/stderr.txt", dir);
  ex_cat(cmd, sizeof cmd, "'%s' --launch '%s/examples/%s' -q %s >/dev/null 2>'%s'",
         getenv("COALCHECK"), getenv("COALCHECK_SRC"), launch, extra ? extra : "", path);
  status = system(cmd);
  *err = ex_read_file(path, &len);
  if (!*err)
    *err = strdup("");
  unlink(path);
  rmdir(dir);
  return status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The run of launch with extra exits with want and its standard error contains each of
 * the NULL-terminated substrings. */
static void ex_check_fails(const char *launch, const char *extra, int want, ...)
{
  char *err;
  int got = ex_run_status(launch, extra, &err);
  const char *sub;
  va_list ap;
  if (got != want)
    fail_msg("%s %s: exit status %d, expected %d; stderr: %s", launch, extra ? extra : "", got,
             want, err);
  va_start(ap, want);
  while ((sub = va_arg(ap, const char *)) != NULL)
    if (!strstr(err, sub))
      fail_msg("%s %s: stderr lacks '%s': %s", launch, extra ? extra : "", sub, err);
  va_end(ap);
  free(err);
}

/* Frees the run and the buffers; removes the temporary folder (only called on success,
 * so a failing test leaves its folder for inspection). */
static void ex_release(struct ex_run *r, struct ex_buffer *bufs, size_t nbufs)
{
  DIR *d = opendir(r->dir);
  struct dirent *e;
  char path[512];
  size_t i;
  for (i = 0; i < nbufs; i++) {
    free(bufs[i].data);
    free(bufs[i].init);
    bufs[i].data = bufs[i].init = NULL;
  }
  cJSON_Delete(r->report);
  r->report = NULL;
  if (d) {
    while ((e = readdir(d)) != NULL) {
      if (e->d_name[0] == '.')
        continue;
      snprintf(path, sizeof path, "%s/%s", r->dir, e->d_name);
      unlink(path);
    }
    closedir(d);
    rmdir(r->dir);
  }
}

/* ---- reading the report ---------------------------------------------------------- */

/* The kernel object of the report named name (source name). */
static const cJSON *ex_kernel(const struct ex_run *r, const char *name)
{
  const cJSON *ks = cJSON_GetObjectItemCaseSensitive(r->report, JS_KERNELS), *k;
  cJSON_ArrayForEach(k, ks)
  {
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(k, JS_KNAME);
    if (cJSON_IsString(n) && strcmp(n->valuestring, name) == 0)
      return k;
  }
  fail_msg("report has no kernel '%s' in '%s'", name, JS_KERNELS);
  return NULL;
}

/* The value at a dotted path ("stride.max") of an object, as a number; fails if absent. */
static double ex_num(const cJSON *obj, const char *path)
{
  char key[64];
  const char *dot;
  const cJSON *v = obj;
  while ((dot = strchr(path, '.')) != NULL) {
    snprintf(key, sizeof key, "%.*s", (int)(dot - path), path);
    v = cJSON_GetObjectItemCaseSensitive(v, key);
    path = dot + 1;
  }
  v = cJSON_GetObjectItemCaseSensitive(v, path);
  if (!cJSON_IsNumber(v))
    fail_msg("report: no number at '%s' (in %s)", path, cJSON_PrintUnformatted(obj));
  return v->valuedouble;
}

static uint64_t ex_u64(const cJSON *obj, const char *path)
{
  return (uint64_t)ex_num(obj, path);
}

/* Fails unless kernel's totals in r's report are requests and sectors. */
static void ex_check_totals(const struct ex_run *r, const char *kernel, uint64_t requests,
                            uint64_t sectors)
{
  const cJSON *k = ex_kernel(r, kernel);
  assert_int_equal(ex_u64(k, JS_TOTALS "." JS_REQUESTS), requests);
  assert_int_equal(ex_u64(k, JS_TOTALS "." JS_SECTORS), sectors);
}

static const char *ex_str(const cJSON *obj, const char *key)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!cJSON_IsString(v))
    fail_msg("report: no string '%s' (in %s)", key, cJSON_PrintUnformatted(obj));
  return v->valuestring;
}

#define EX_MAX_PICK 64

/* A selection of a kernel's instructions. */
struct ex_pick {
  const cJSON *insn[EX_MAX_PICK];
  size_t n;
  char what[160]; /* for messages: kernel, PTX prefix, line */
};

/* The instructions of kernel k whose PTX text starts with prefix ("ld.global",
 * "st.shared", "atom.global"), on CUDA source line `line` (0: any line), whose PTX text
 * contains `operand` (NULL: any), and that ran at least once (requests > 0; nvcc's
 * unrolled-loop remainders may never run). Fails when none is found. */
static struct ex_pick ex_pick(const cJSON *k, const char *prefix, int line, const char *operand)
{
  struct ex_pick p;
  const cJSON *insns = cJSON_GetObjectItemCaseSensitive(k, JS_INSNS), *i;
  memset(&p, 0, sizeof p);
  snprintf(p.what, sizeof p.what, "%s: %s line %d%s%s", ex_str(k, JS_KNAME), prefix, line,
           operand ? " operand " : "", operand ? operand : "");
  cJSON_ArrayForEach(i, insns)
  {
    const char *ptx = ex_str(i, JS_PTX);
    const cJSON *src = cJSON_GetObjectItemCaseSensitive(i, JS_SOURCE);
    const cJSON *ln = src ? cJSON_GetObjectItemCaseSensitive(src, JS_LINE) : NULL;
    if (strncmp(ptx, prefix, strlen(prefix)) != 0)
      continue;
    if (line && !(cJSON_IsNumber(ln) && ln->valueint == line))
      continue;
    if (operand && !strstr(ptx, operand))
      continue;
    if (ex_u64(i, JS_REQUESTS) == 0)
      continue;
    if (p.n == EX_MAX_PICK)
      fail_msg("%s: more than %d instructions", p.what, EX_MAX_PICK);
    p.insn[p.n++] = i;
  }
  if (p.n == 0)
    fail_msg("%s: no such instruction ran (report: %s)", p.what, cJSON_PrintUnformatted(k));
  return p;
}

/* Sum of a numeric field over the picked instructions. */
static uint64_t ex_sum(const struct ex_pick *p, const char *field)
{
  uint64_t s = 0;
  size_t i;
  for (i = 0; i < p->n; i++)
    s += ex_u64(p->insn[i], field);
  return s;
}

#define EX_EQ_U64(actual, expected, ...)                                                   \
  do {                                                                                     \
    uint64_t a_ = (actual), e_ = (expected);                                               \
    if (a_ != e_) {                                                                        \
      char w_[256];                                                                        \
      snprintf(w_, sizeof w_, __VA_ARGS__);                                                \
      fail_msg("%s: got %" PRIu64 ", expected %" PRIu64, w_, a_, e_);                       \
    }                                                                                      \
  } while (0)

/* The summed field over the pick equals expected. */
static void ex_check_sum(const struct ex_pick *p, const char *field, uint64_t expected)
{
  EX_EQ_U64(ex_sum(p, field), expected, "%s: sum of %s over %zu instruction(s)", p->what,
            field, p->n);
}

/* Every picked instruction's numeric field equals expected. */
static void ex_check_each(const struct ex_pick *p, const char *field, double expected)
{
  size_t i;
  for (i = 0; i < p->n; i++) {
    double v = ex_num(p->insn[i], field);
    if (v != expected)
      fail_msg("%s: %s of '%s' is %.17g, expected %.17g", p->what, field,
               ex_str(p->insn[i], JS_PTX), v, expected);
  }
}

/* Every picked instruction's string field equals expected. */
static void ex_check_each_str(const struct ex_pick *p, const char *field, const char *expected)
{
  size_t i;
  for (i = 0; i < p->n; i++) {
    const char *v = ex_str(p->insn[i], field);
    if (strcmp(v, expected) != 0)
      fail_msg("%s: %s of '%s' is '%s', expected '%s'", p->what, field,
               ex_str(p->insn[i], JS_PTX), v, expected);
  }
}

/* Whether the suggestions of insn name kind (a string entry, or an object whose "kind"
 * is kind). */
static int ex_has_suggestion(const cJSON *insn, const char *kind)
{
  const cJSON *s = cJSON_GetObjectItemCaseSensitive(insn, JS_SUGGESTIONS), *e;
  cJSON_ArrayForEach(e, s)
  {
    const cJSON *kd = cJSON_IsObject(e) ? cJSON_GetObjectItemCaseSensitive(e, "kind") : e;
    if (cJSON_IsString(kd) && strcmp(kd->valuestring, kind) == 0)
      return 1;
  }
  return 0;
}

/* Every picked instruction suggests kind (want = 1) or does not (want = 0). */
static void ex_check_suggestion(const struct ex_pick *p, const char *kind, int want)
{
  size_t i;
  for (i = 0; i < p->n; i++) {
    const cJSON *all = cJSON_GetObjectItemCaseSensitive(p->insn[i], JS_SUGGESTIONS);
    if (ex_has_suggestion(p->insn[i], kind) != want)
      fail_msg("%s: '%s' %s suggestion '%s' (suggestions: %s)", p->what,
               ex_str(p->insn[i], JS_PTX), want ? "lacks" : "has", kind,
               cJSON_PrintUnformatted(all));
  }
}

/* Every picked instruction has a suggestion of kind whose text contains part. */
static void ex_check_advice_text(const struct ex_pick *p, const char *kind, const char *part)
{
  size_t i;
  for (i = 0; i < p->n; i++) {
    const cJSON *all = cJSON_GetObjectItemCaseSensitive(p->insn[i], JS_SUGGESTIONS), *e;
    int found = 0;
    cJSON_ArrayForEach(e, all)
    {
      const cJSON *kd = cJSON_GetObjectItemCaseSensitive(e, "kind");
      const cJSON *tx = cJSON_GetObjectItemCaseSensitive(e, "text");
      found |= cJSON_IsString(kd) && strcmp(kd->valuestring, kind) == 0 && cJSON_IsString(tx) &&
               strstr(tx->valuestring, part) != NULL;
    }
    if (!found)
      fail_msg("%s: '%s' has no '%s' suggestion saying '%s' (suggestions: %s)", p->what,
               ex_str(p->insn[i], JS_PTX), kind, part, cJSON_PrintUnformatted(all));
  }
}

/* ---- comparing outputs ------------------------------------------------------------ */

/* got[i] == want[i] bit for bit, for count floats; names the first difference. */
static void ex_check_floats_exact(const char *what, const float *got, const float *want,
                                  size_t count)
{
  size_t i;
  for (i = 0; i < count; i++)
    if (memcmp(&got[i], &want[i], sizeof(float)) != 0)
      fail_msg("%s[%zu] = %.9g (%a), reference %.9g (%a)", what, i, (double)got[i],
               (double)got[i], (double)want[i], (double)want[i]);
}

static void ex_check_u32_exact(const char *what, const uint32_t *got, const uint32_t *want,
                               size_t count)
{
  size_t i;
  for (i = 0; i < count; i++)
    if (got[i] != want[i])
      fail_msg("%s[%zu] = %" PRIu32 ", reference %" PRIu32, what, i, got[i], want[i]);
}

/* The test's own uniform [0,1) floats (for buffers given by file). */
static float *ex_random_floats(size_t count, uint32_t seed)
{
  float *f = malloc(count * sizeof *f);
  size_t i;
  assert_non_null(f);
  for (i = 0; i < count; i++)
    f[i] = ex_rand01(&seed);
  return f;
}

/* Exit status 77 (CTest: skipped) unless COALCHECK, COALCHECK_SRC and nvcc are there. */
static void ex_skip_unless_ready(void)
{
  const char *bin = getenv("COALCHECK"), *src = getenv("COALCHECK_SRC");
  if (!bin || !*bin || !src || !*src) {
    printf("skipped: COALCHECK or COALCHECK_SRC not set (the coalcheck binary is not built)\n");
    exit(77);
  }
  if (access(bin, X_OK) != 0) {
    printf("skipped: %s is not an executable\n", bin);
    exit(77);
  }
  if (system("command -v nvcc >/dev/null 2>&1 || test -x /usr/local/cuda/bin/nvcc") != 0) {
    printf("skipped: nvcc not found (PATH or /usr/local/cuda/bin)\n");
    exit(77);
  }
}

#endif
