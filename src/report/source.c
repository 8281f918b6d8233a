/* Source-line cache for the text report: see source.h. Each file is read once. */
#include "report/source.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/mem.h"

struct file {
  char *path;
  char *text; /* NULL: could not be read */
  size_t len;
};

struct cc_source_cache {
  CC_VEC(struct file) files;
};

struct cc_source_cache *cc_report_source_new(void)
{
  return cc_xcalloc(1, sizeof(struct cc_source_cache));
}

void cc_report_source_free(struct cc_source_cache *c)
{
  if (!c)
    return;
  for (size_t i = 0; i < c->files.len; i++) {
    free(c->files.data[i].path);
    free(c->files.data[i].text);
  }
  CC_VEC_FREE(&c->files);
  free(c);
}

static struct file *get_file(struct cc_source_cache *c, const char *path)
{
  struct file f = { 0 };
  struct cc_err err = { 0 };
  for (size_t i = 0; i < c->files.len; i++)
    if (strcmp(c->files.data[i].path, path) == 0)
      return &c->files.data[i];
  f.path = cc_xstrdup(path);
  /* unreadable is not an error for a report: the row says the source is not available */
  if (cc_file_read(path, &f.text, &f.len, &err) != CC_OK)
    f.text = NULL;
  CC_VEC_PUSH(&c->files, f);
  return &c->files.data[c->files.len - 1];
}

const char *cc_report_source_line(struct cc_source_cache *c, const char *path, uint32_t line,
                                  size_t *len)
{
  struct file *f;
  const char *p, *end;
  if (!path || line == 0)
    return NULL;
  f = get_file(c, path);
  if (!f->text)
    return NULL;
  p = f->text;
  end = f->text + f->len;
  for (uint32_t l = 1; l < line; l++) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (!nl)
      return NULL;
    p = nl + 1;
  }
  if (p >= end)
    return NULL;
  const char *nl = memchr(p, '\n', (size_t)(end - p));
  *len = (size_t)((nl ? nl : end) - p);
  if (*len > 0 && p[*len - 1] == '\r')
    (*len)--;
  return p;
}

const char *cc_report_squeeze(const char *s, char *buf, size_t cap)
{
  size_t o = 0;
  int blank = 0;
  for (; *s && o + 1 < cap; s++) {
    if (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') {
      blank = o > 0;
      continue;
    }
    if (blank && o + 2 < cap)
      buf[o++] = ' ';
    blank = 0;
    buf[o++] = *s;
  }
  buf[o] = '\0';
  return buf;
}

const char *cc_report_line_name(uint32_t line, char *buf, size_t cap)
{
  if (line)
    snprintf(buf, cap, "line %" PRIu32, line);
  else
    snprintf(buf, cap, "line unknown");
  return buf;
}

const char *cc_report_place(const char *path, uint32_t line, char *buf, size_t cap)
{
  if (!path)
    snprintf(buf, cap, "?");
  else if (line)
    snprintf(buf, cap, "%s:%" PRIu32, path, line);
  else
    snprintf(buf, cap, "%s, line unknown", path);
  return buf;
}
