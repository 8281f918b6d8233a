/* `coalcheck merge`: the JSON reports of several ranks of one MPI job (one report per
 * rank, docs/json-schema.md) combined per kernel with one column per rank, and the ranks
 * whose figures differ flagged (load imbalance). Documented in docs/usage.md ("Merging
 * the reports of MPI ranks") and docs/json-schema.md ("merge document"). */
#ifndef CC_REPORT_MERGE_H
#define CC_REPORT_MERGE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/err.h"

#define CC_REPORT_MERGE_DOCUMENT "coalcheck-merge"

/* The figures compared per rank, in this order: requests, sectors, excess sectors
 * (global and local), shared-memory wavefronts. */
enum cc_merge_metric {
  CC_MERGE_REQUESTS,
  CC_MERGE_SECTORS,
  CC_MERGE_EXCESS,
  CC_MERGE_WAVEFRONTS,
  CC_MERGE_NMETRICS
};

/* One row of a merged kernel: its totals or one instruction. v[r * CC_MERGE_NMETRICS + m]
 * is metric m of rank r, meaningful where present[r]. */
struct cc_merge_row {
  long ptx_index;          /* -1 for the totals */
  char *file, *op, *space; /* the instruction's source file (or NULL), op and space */
  long line;
  uint64_t *v;
  unsigned char *present;
};

/* One kernel launch matched across ranks: by mangled name (else name), grid and block
 * where the reports give them, and occurrence (the k-th such launch of a rank). */
struct cc_merge_kernel {
  char *name, *mangled;
  int has_geometry;
  uint32_t grid[3], block[3];
  unsigned occurrence;     /* 1-based */
  unsigned char *present;  /* per rank: the kernel is in that rank's report */
  struct cc_merge_row totals;
  struct cc_merge_row *insns;
  size_t n_insns;
};

/* The merge of nranks reports; rank r is files[r] (the order given). */
struct cc_merge {
  size_t nranks;
  char **files;
  int schema_version;
  char *arch, *tool_version;
  double threshold_pct;    /* imbalance threshold, percent */
  struct cc_merge_kernel *kernels;
  size_t n_kernels;
};

/* Reads files[0..n) (n >= 1; rank r is files[r]), each a coalcheck JSON report, and
 * merges them into *m (zeroed first; free with cc_report_merge_release even on failure).
 * threshold_pct: a rank's figure is flagged when it exceeds the fewest of the ranks by
 * more than threshold_pct percent of that fewest (0: any difference). A kernel missing in
 * some ranks is kept (its present[] says where), not an error. Errors: CC_ERR_INPUT
 * naming the file: unreadable, not JSON, not a coalcheck report (a comparison or merge
 * document, or no schema_version / kernels), a field of the wrong type; schema versions
 * or --arch models that differ between files (both named). */
int cc_report_merge_load(const char *const *files, size_t n, double threshold_pct,
                         struct cc_merge *m, struct cc_err *err);

/* Whether rank r's metric in row differs from the fewest of the ranks present by more
 * than m->threshold_pct percent of it; *min_rank receives the rank with the fewest. */
int cc_report_merge_flagged(const struct cc_merge *m, const struct cc_merge_row *row,
                            enum cc_merge_metric metric, size_t r, size_t *min_rank);

/* Writes the text table: per kernel, a column per rank for the totals and each
 * instruction, then one line per flagged rank and metric ("rank 1 (r1.json): requests
 * 8 is 4 more (+100.0%) than rank 0's 4, the fewest") and one per rank missing the
 * kernel. Returns the number of flags written. */
size_t cc_report_merge_text(FILE *fp, const struct cc_merge *m);

/* The merge as a JSON document (docs/json-schema.md, "merge document"); owned. */
cc_give char *cc_report_merge_json_string(const struct cc_merge *m);

/* The merge as CSV (RFC 4180): one row per kernel's totals and per instruction, one
 * column per metric and rank; owned. */
cc_give char *cc_report_merge_csv_string(const struct cc_merge *m);

/* Frees what m owns and zeroes it. */
void cc_report_merge_release(struct cc_merge *m);

#endif
