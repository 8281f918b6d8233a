/* dWarp (Rosen, EuroVis 2013, Sec. 5.1.1, Eq. 1-5), the operation record it compares,
 * and the sample of warps it picks: the first CTA's warps (its warp 0 is the
 * representative, as the paper's default block (0,0)) and the CC_VIEW_MAX_OUTLIERS warps
 * farthest from the representative. */
#include "view/view_impl.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "util/mem.h"

/* The paper's weights (Sec. 5.1.1): s_ins = 1, s_thrd = 1/32 (threads of a warp),
 * s_glob = 1/1024 (the largest transaction, bytes), s_conf = 1/8 (an 8-way conflict). */
#define S_INS 1.0
#define S_THRD (1.0 / 32.0)
#define S_GLOB (1.0 / 1024.0)
#define S_CONF (1.0 / 8.0)
#define SECTOR_BYTES 32.0

static const struct cc_view_op no_op = {UINT32_MAX, 0, 0, 0};

static double absdiff(uint32_t a, uint32_t b)
{
  return a > b ? (double)(a - b) : (double)(b - a);
}

static double dop(const struct cc_view_op *a, const struct cc_view_op *b)
{
  double ins = a->slot != b->slot;                                       /* Eq. 1 */
  double thrd = 32.0 - (double)__builtin_popcount(a->active & b->active); /* Eq. 2 */
  double glob = SECTOR_BYTES * absdiff(a->sectors, b->sectors);          /* Eq. 3 */
  double conf = absdiff(a->conflicts, b->conflicts);                     /* Eq. 4 */
  return S_INS * ins + S_THRD * thrd + S_GLOB * glob + S_CONF * conf;    /* Eq. 5 */
}

double cc_view_dwarp(const struct cc_view_op *a, size_t na, const struct cc_view_op *b,
                     size_t nb)
{
  size_t n = na > nb ? na : nb;
  double sum = 0;
  for (size_t i = 0; i < n; i++)
    sum += dop(i < na ? &a[i] : &no_op, i < nb ? &b[i] : &no_op);
  return n ? sum / (double)n : 0.0;
}

/* Moves warp w of the running CTA into the sample with role r (its records copied to
 * their size), or over the outlier at index at when at < n_stored. */
static void store(struct cc_view *v, struct cc_view_cur *w, uint32_t warp,
                  enum cc_view_role r, double d, size_t at)
{
  struct cc_view_warp s = {{v->cur_cta[0], v->cur_cta[1], v->cur_cta[2]}, warp, r, d,
                           NULL, w->n_recs, w->recs_truncated};
  s.recs = cc_xmalloc((w->n_recs ? w->n_recs : 1) * sizeof *s.recs);
  if (w->n_recs)
    memcpy(s.recs, w->recs, w->n_recs * sizeof *s.recs);
  if (at < v->n_stored) {
    free(v->stored[at].recs);
    v->stored[at] = s;
    return;
  }
  if (v->n_stored == v->cap_stored) {
    v->cap_stored = v->cap_stored ? 2 * v->cap_stored : 16;
    v->stored = cc_xrealloc(v->stored, v->cap_stored * sizeof *v->stored);
  }
  v->stored[v->n_stored++] = s;
}

/* An outlier candidate: stored while fewer than CC_VIEW_MAX_OUTLIERS are, else in place
 * of the closest outlier when d is larger (ties keep the earlier warp). */
static void consider_outlier(struct cc_view *v, struct cc_view_cur *w, uint32_t warp, double d)
{
  size_t n_out = 0, min_at = SIZE_MAX;
  if (d <= 0)
    return;
  for (size_t i = 0; i < v->n_stored; i++) {
    if (v->stored[i].role != CC_VIEW_OUTLIER)
      continue;
    n_out++;
    if (min_at == SIZE_MAX || v->stored[i].dwarp < v->stored[min_at].dwarp)
      min_at = i;
  }
  if (n_out < CC_VIEW_MAX_OUTLIERS)
    store(v, w, warp, CC_VIEW_OUTLIER, d, SIZE_MAX);
  else if (d > v->stored[min_at].dwarp)
    store(v, w, warp, CC_VIEW_OUTLIER, d, min_at);
}

static void take_representative(struct cc_view *v)
{
  struct cc_view_cur *r = &v->cur[0];
  v->n_rep_ops = r->n_ops;
  v->rep_ops = cc_xmalloc((r->n_ops ? r->n_ops : 1) * sizeof *v->rep_ops);
  if (r->n_ops)
    memcpy(v->rep_ops, r->ops, r->n_ops * sizeof *v->rep_ops);
  v->have_rep = 1;
  memcpy(v->rep_cta, v->cur_cta, sizeof v->rep_cta);
}

void cc_view_finish_cta(struct cc_view *v)
{
  int first = !v->have_rep;
  uint64_t row;
  struct cc_view_cell *c;
  if (!v->cta_open)
    return;
  row = v->cur_cta[1] + (uint64_t)v->cur_cta[2] * v->grid[1];
  c = &v->cells[(size_t)(row / v->bin[1]) * v->nx + v->cur_cta[0] / v->bin[0]];
  if (first)
    take_representative(v);
  for (uint32_t i = 0; i < v->warps_per_cta; i++) {
    struct cc_view_cur *w = &v->cur[i];
    double d;
    if (w->n_ops == 0)
      continue; /* no memory instruction: nothing to compare */
    d = cc_view_dwarp(v->rep_ops, v->n_rep_ops, w->ops, w->n_ops);
    c->warps++;
    c->dwarp_sum += d;
    if (d > c->dwarp_max)
      c->dwarp_max = d;
    v->warps_total++;
    v->dwarp_sum += d;
    if (d > v->dwarp_max || v->warps_total == 1) {
      v->dwarp_max = d;
      memcpy(v->max_cta, v->cur_cta, sizeof v->max_cta);
      v->max_warp = i;
    }
    v->sig_truncated |= w->sig_truncated;
    if (first && i < CC_VIEW_MAX_FIRST_WARPS)
      store(v, w, i, i == 0 ? CC_VIEW_REPRESENTATIVE : CC_VIEW_FIRST_CTA, d, SIZE_MAX);
    else if (!first)
      consider_outlier(v, w, i, d);
    w->n_ops = w->n_recs = 0;
    w->recs_truncated = 0;
    w->sig_truncated = 0;
  }
  v->cta_open = 0;
}

static cJSON *dim3(const uint32_t d[3])
{
  cJSON *a = cJSON_CreateArray();
  for (int i = 0; i < 3; i++)
    cJSON_AddItemToArray(a, cJSON_CreateNumber(d[i]));
  return a;
}

const char *cc_view_role_name(enum cc_view_role r)
{
  static const char *const names[] = {"representative", "first-cta", "outlier"};
  return names[r];
}

void *cc_view_dwarp_json(const struct cc_view *v)
{
  cJSON *o, *rep, *w, *ws;
  if (!v->has_kernel || !v->have_rep)
    return NULL;
  o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "model", "sm_90");
  w = cJSON_AddObjectToObject(o, "weights");
  cJSON_AddNumberToObject(w, "ins", S_INS);
  cJSON_AddNumberToObject(w, "thrd", S_THRD);
  cJSON_AddNumberToObject(w, "glob", S_GLOB);
  cJSON_AddNumberToObject(w, "conf", S_CONF);
  rep = cJSON_AddObjectToObject(o, "representative");
  cJSON_AddItemToObject(rep, "cta", dim3(v->rep_cta));
  cJSON_AddNumberToObject(rep, "warp", 0);
  cJSON_AddNumberToObject(o, "warps", (double)v->warps_total);
  cJSON_AddNumberToObject(o, "mean", v->warps_total ? v->dwarp_sum / (double)v->warps_total : 0);
  w = cJSON_AddObjectToObject(o, "max");
  cJSON_AddNumberToObject(w, "dwarp", v->dwarp_max);
  cJSON_AddItemToObject(w, "cta", dim3(v->max_cta));
  cJSON_AddNumberToObject(w, "warp", v->max_warp);
  ws = cJSON_AddArrayToObject(o, "sampled");
  for (size_t i = 0; i < v->n_stored; i++) {
    cJSON *s = cJSON_CreateObject();
    cJSON_AddItemToObject(s, "cta", dim3(v->stored[i].cta));
    cJSON_AddNumberToObject(s, "warp", v->stored[i].warp);
    cJSON_AddStringToObject(s, "role", cc_view_role_name(v->stored[i].role));
    cJSON_AddNumberToObject(s, "dwarp", v->stored[i].dwarp);
    cJSON_AddItemToArray(ws, s);
  }
  return o;
}
