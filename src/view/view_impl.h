/* Inside src/view: the collector's state, shared by collect.c (the sink), dwarp.c (the
 * metric and the sample) and html.c (the page). */
#ifndef CC_VIEW_VIEW_IMPL_H
#define CC_VIEW_VIEW_IMPL_H
#include "view/view.h"

/* A static memory instruction, copied at begin_kernel (the kernel info is borrowed). */
struct cc_view_insn {
  uint32_t id;         /* ptx_index, as the report's instructions name it */
  enum cc_access_kind kind;
  enum cc_space space;
  uint32_t size_bytes;
  char *text, *file;   /* owned; file NULL without line information */
  uint32_t line;
};

/* One grid-view cell: the CTAs binned into it, summed (its costs: cc_view_cost, one per
 * model). */
struct cc_view_cell {
  uint64_t ctas, warps;
  double dwarp_sum, dwarp_max;
};

/* What the memory instructions of a cell (or of one source line in a cell) cost under
 * one model, summed. excess_bytes: bytes the transactions move beyond the ideal sectors
 * (transaction_bytes - 32 x ideal_sectors; on the sector models 32 x the excess sectors),
 * so that every model's excess is counted in the same unit. */
struct cc_view_cost {
  uint64_t global_execs, requests, transactions, bytes, excess_bytes; /* global, local */
  uint64_t shared_execs, wavefronts, excess_wavefronts;               /* shared */
};

/* The per-line grid: executions and excess (excess bytes / 32 + excess wavefronts) of
 * one source line's instructions in one cell under one model. */
struct cc_view_line_cost {
  uint64_t execs, excess;
};

/* A warp of the CTA that is running: its operations (for dWarp) and its first records. */
struct cc_view_cur {
  struct cc_view_op *ops;
  size_t n_ops, cap_ops;
  int sig_truncated;
  struct cc_warp_access *recs;  /* CC_VIEW_MAX_OPS slots, allocated on first use */
  size_t n_recs;
  uint64_t recs_truncated;      /* records past CC_VIEW_MAX_OPS, not kept */
};

enum cc_view_role { CC_VIEW_REPRESENTATIVE, CC_VIEW_FIRST_CTA, CC_VIEW_OUTLIER };

/* "representative", "first-cta", "outlier" (the JSON's and the page's names). */
const char *cc_view_role_name(enum cc_view_role r);

/* A warp stored in full for the block, warp and operation views. */
struct cc_view_warp {
  uint32_t cta[3], warp;
  enum cc_view_role role;
  double dwarp;
  struct cc_warp_access *recs;  /* owned, n_recs */
  size_t n_recs;
  uint64_t recs_truncated;
};

struct cc_view {
  struct cc_model *model;       /* sm_90: the sectors and conflicts dWarp compares */
  struct cc_model **models;     /* the report's models (--arch), n_models */
  size_t n_models;
  int smem_bank_width;          /* the models' option (0: 4 bytes), for the page's banks */
  size_t dwarp_model;           /* index of sm_90 in models, or n_models: none */
  char *unavailable;            /* cc_view_set_unavailable's text, or NULL */
  int has_kernel, in_kernel;
  uint64_t later_kernels;       /* kernels after the first, ignored */
  char *name;
  uint32_t grid[3], block[3], warps_per_cta;
  struct cc_view_insn *insns;
  uint32_t n_insns;
  uint64_t bin[2];              /* CTAs per cell in x and in rows (y + z * grid_y) */
  uint32_t nx, ny;
  struct cc_view_cell *cells;   /* ny rows of nx */
  struct cc_view_cost *costs;   /* cell c, model k at c * n_models + k */
  uint32_t *slot_line;          /* per instruction slot: its index in lines, or UINT32_MAX */
  struct cc_view_insn **lines;  /* the distinct source lines (their first instruction) */
  uint32_t n_lines, n_lines_kept; /* lines with a per-line grid: the first n_lines_kept */
  struct cc_view_line_cost *line_costs; /* line l, model k, cell c at
                                           (l * n_models + k) * cells + c */
  struct cc_view_cur *cur;      /* warps_per_cta */
  uint32_t cur_cta[3];
  int cta_open;
  struct cc_view_op *rep_ops;   /* the representative's operations (warp 0 of the first CTA) */
  size_t n_rep_ops;
  int have_rep;
  uint32_t rep_cta[3];          /* the representative's CTA (its warp is 0) */
  uint64_t warps_total;         /* warps compared (those with a memory instruction) */
  double dwarp_sum, dwarp_max;
  uint32_t max_cta[3], max_warp;
  struct cc_view_warp *stored;  /* the sample */
  size_t n_stored, cap_stored;
  int sig_truncated;            /* some warp had more than CC_VIEW_MAX_SIG_OPS operations */
};

/* Closes the running CTA: the representative (first CTA), each warp's dWarp into the
 * CTA's cell and the totals, the sample updated (dwarp.c). No-op without an open CTA. */
void cc_view_finish_cta(struct cc_view *v);

#endif
