/* coalcheck: the views (issue 11) — one self-contained HTML page with the four levels of
 * Rosen's EuroVis 2013 paper ("A Visual Approach to Investigating Shared and Global
 * Memory Behavior of CUDA Kernels", Sec. 5): grid (every CTA), block (its warps), warp
 * (its memory instructions over time), operation (one instruction's 32 lanes), beside the
 * source, and the paper's warp-difference metric dWarp (Eq. 1-5).
 *
 * The data comes from one access stream (access.h) through cc_view_sink, teed beside the
 * analyses only when --html is given: per-CTA aggregates for every CTA (binned when the
 * grid is large), and full detail (the 32 lanes' addresses of every dynamic instruction)
 * for a bounded sample of warps picked with dWarp: the first CTA's warps (the
 * representative is its warp 0) and the warps that differ most from the representative.
 * Bounds: CC_VIEW_MAX_CELLS grid cells, CC_VIEW_MAX_OUTLIERS outliers, at most
 * CC_VIEW_MAX_FIRST_WARPS warps of the first CTA, CC_VIEW_MAX_OPS dynamic instructions
 * per stored warp; the page says what was sampled. */
#ifndef CC_VIEW_VIEW_H
#define CC_VIEW_VIEW_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "access/access.h"
#include "util/err.h"
#include "util/mem.h"

#define CC_VIEW_MAX_CELLS 16384u      /* grid view cells; more CTAs are binned */
#define CC_VIEW_MAX_OUTLIERS 8u       /* outlier warps stored in full */
#define CC_VIEW_MAX_FIRST_WARPS 32u   /* warps of the first CTA stored in full */
#define CC_VIEW_MAX_OPS 256u          /* dynamic instructions kept per stored warp */
#define CC_VIEW_MAX_SIG_OPS 65536u    /* operations per warp that enter its dWarp */
#define CC_VIEW_MAX_LINE_CELLS (1u << 19) /* per-line grid entries (lines x models x cells) */
#define CC_VIEW_MAX_TRANSACTIONS 131072u  /* transactions listed for the operation view */

/* One operation of a warp as dWarp compares it (EuroVis 2013, Sec. 5.1.1): the static
 * instruction (its slot), the active lanes, the global transactions (32-byte sectors of
 * the sm_90 model; 0 for shared) and the shared-memory bank conflicts (wavefronts beyond
 * the conflict-free ones; 0 for global and local). */
struct cc_view_op {
  uint32_t slot;       /* cc_kernel_info.insns index; UINT32_MAX: no operation */
  uint32_t active;     /* lane mask */
  uint32_t sectors;    /* global/local: 32-byte sectors the request moves */
  uint32_t conflicts;  /* shared: wavefronts - ideal wavefronts */
};

/* dWarp(A, B) of Rosen, EuroVis 2013, Eq. 5, over two warps' operation sequences a[na]
 * and b[nb] paired by position (the i-th dynamic memory instruction of each):
 *   d_op = s_ins d_ins + s_thrd d_thrd + s_glob d_glob + s_conf d_conf, with
 *   d_ins  = 0 if the instructions are the same, else 1               (Eq. 1)
 *   d_thrd = 32 - |A_thrd ∩ B_thrd| (lanes active in both)            (Eq. 2)
 *   d_glob = sum_i |size(A_glob(i)) - size(B_glob(i))|, bytes         (Eq. 3)
 *   d_conf = |A_conf - B_conf|                                        (Eq. 4)
 *   s_ins = 1, s_thrd = 1/32, s_glob = 1/1024, s_conf = 1/8 (the paper's weights);
 * and, "when considering multiple operations, the mean of differences for all
 * operations": dWarp = sum of d_op / max(na, nb). The transactions are the sm_90 model's
 * 32-byte sectors, so Eq. 3 pairs equal sizes and is exactly 32 x |sectors A - sectors
 * B|. A position only one warp reached is compared with no operation (slot UINT32_MAX,
 * no lane, no transaction, no conflict). Not clamped (the page clamps to [0, 1] for
 * colour, as the paper). Two empty sequences: 0. Note Eq. 2: a warp with inactive lanes
 * differs from itself (32 - popcount > 0), as the paper defines it. */
double cc_view_dwarp(const struct cc_view_op *a, size_t na, const struct cc_view_op *b,
                     size_t nb);

struct cc_view; /* the collected views of one run (first kernel of the stream) */

struct cc_model_opts;

/* A new, empty collector whose views follow the models of archs (a comma-separated
 * --arch list, as the report's: "cc1.0,sm_90"; NULL: "sm_90") with opts (may be NULL):
 * the grid, block, warp and operation views have each model's requests, transactions,
 * bytes and excess, and the operation view each model's transactions (model.h,
 * cc_model_global_list). dWarp always uses the sm_90 model (its 32-byte sectors, as the
 * paper's Eq. 3 sizes). Errors: those of cc_model_get_list (CC_ERR_USAGE). */
int cc_view_new(const char *archs, const struct cc_model_opts *opts,
                cc_give struct cc_view **out, struct cc_err *err);

/* Marks the page as having no per-warp records: why (copied) says why and how to get
 * them; the page shows it in place of the grid, block, warp and operation views (the GPU
 * backend's in-situ counters: docs/views.md). */
void cc_view_set_unavailable(struct cc_view *v, const char *why);
/* Frees v and everything it collected. NULL is allowed. */
void cc_view_free(cc_take struct cc_view *v);

/* The sink that feeds v (borrowed for the stream). It keeps the first kernel of the
 * stream; later kernels are counted and ignored (the page says so). Records of a CTA are
 * expected together (the emulator runs one CTA after another; a trace replays them in
 * that order): a CTA that comes back later is folded in as a new CTA for dWarp. */
struct cc_access_sink cc_view_sink(cc_keep struct cc_view *v);

/* The dWarp summary of the kernel as a cJSON object (cJSON *, returned as void * so that
 * this header needs no cJSON): representative, weights, per stored warp its dWarp, mean
 * and max over all warps (docs/json-schema.md, "dwarp"). NULL when no kernel ran. */
void *cc_view_dwarp_json(const struct cc_view *v);

/* Writes the page to fp: report_json is the JSON report (or the comparison document) of
 * the same run, embedded for the source panel and the figures (the source files of its
 * instructions are embedded too, so that a run without records still has its source
 * panel); title a label (the input file). All text reaches the page as JSON inside <script type="application/json">
 * (with <, >, &, U+2028/2029 escaped) and is put into the document with textContent
 * only. Errors: CC_ERR_IO (write error). */
int cc_view_html_write(FILE *fp, const struct cc_view *v, const char *report_json,
                       const char *title, struct cc_err *err);

/* The JSON text s made safe inside a <script> element: <, >, & and U+2028/2029 become
 * \u003c, \u003e, \u0026, \u2028, \u2029 (valid only inside JSON strings, which is
 * where JSON text can contain them). Returns a new string. */
cc_give char *cc_view_script_escape(const char *s);

#endif
