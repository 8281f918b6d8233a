/* coalcheck gpu: the injection library's state from the environment (inject_impl.h).
 * Every variable is checked here, before the application runs: a malformed one stops the
 * process with a message that names it and what to give instead. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/inject_impl.h"
#include "util/mem.h"

/* Directory of this library + "/coalcheck_gpu_patch.fatbin". */
static char *default_patch_path(void)
{
  Dl_info info;
  char buf[4096] = "coalcheck_gpu_patch.fatbin";
  if (dladdr((void *)default_patch_path, &info) && info.dli_fname) {
    const char *slash = strrchr(info.dli_fname, '/');
    if (slash)
      snprintf(buf, sizeof buf, "%.*s/coalcheck_gpu_patch.fatbin",
               (int)(slash - info.dli_fname), info.dli_fname);
  }
  return cc_gpu_inj_strdup(buf);
}

/* Declared in inject_impl.h. */
struct state *cc_gpu_inj_state_new(void)
{
  struct state *s = calloc(1, sizeof *s);
  if (s == NULL)
    return NULL;
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_init(&s->lock, &attr);
  pthread_mutexattr_destroy(&attr);
  s->debug = getenv("COALCHECK_GPU_DEBUG") != NULL;
  const char *patch = getenv("COALCHECK_GPU_PATCH");
  s->patch_path = patch && *patch ? cc_gpu_inj_strdup(patch) : default_patch_path();
  const char *json = getenv("COALCHECK_GPU_JSON");
  s->json_path = json && *json ? cc_gpu_inj_strdup(json) : NULL;
  s->quiet = getenv("COALCHECK_GPU_QUIET") != NULL;
  const char *ex = getenv("COALCHECK_GPU_EXACT");
  s->exact = ex && *ex && strcmp(ex, "0") != 0;
  const char *pf = getenv("COALCHECK_GPU_PROFILE");
  s->profile = pf && *pf && strcmp(pf, "0") != 0;
  const char *per = getenv("COALCHECK_GPU_LAUNCH_PERIOD");
  s->period = CC_GPU_SAMPLE_PERIOD;
  if (per && *per) {
    char *end;
    unsigned long v = strtoul(per, &end, 10);
    if (*end != '\0' || per[0] == '-' || v == 0 || v > UINT32_MAX) {
      fprintf(stderr, "coalcheck-gpu: error: COALCHECK_GPU_LAUNCH_PERIOD=%s: not a positive "
              "integer; give N to sample 1 launch in N of each geometry (1: all)\n", per);
      exit(CC_ERR_USAGE);
    }
    s->period = (uint32_t)v;
  }
  const char *diag = getenv("COALCHECK_GPU_DIAG");
  s->mode = diag && strcmp(diag, "noatomics") == 0 ? CC_GPU_MODE_NO_ATOMICS
           : diag && strcmp(diag, "nobits") == 0  ? CC_GPU_MODE_NO_BITS
                                                  : 0;
  s->trace_nocopy = diag && strcmp(diag, "trace-nocopy") == 0;
  s->nodefer = diag && strcmp(diag, "nodefer") == 0;
  s->graph_data = GRAPH_DATA_FUNCTION;
  if (diag && strcmp(diag, "graph-launch-data") == 0)
    s->graph_data = GRAPH_DATA_LAUNCH;
  else if (diag && strcmp(diag, "graph-both") == 0)
    s->graph_data = GRAPH_DATA_LAUNCH | GRAPH_DATA_FUNCTION;
  else if (diag && strcmp(diag, "graph-api-stream") == 0)
    s->graph_data = GRAPH_DATA_LAUNCH | GRAPH_DATA_API_STREAM;
  const char *tr = getenv("COALCHECK_GPU_TRACE");
  s->trace_path = tr && *tr ? cc_gpu_inj_strdup(tr) : NULL;
  if (s->trace_path)
    s->exact = 1; /* a trace holds every launch */
  const char *ring = getenv("COALCHECK_GPU_TRACE_RING");
  s->ring_cap = 1u << 16; /* 65536 records x 320 B = 20 MiB pinned */
  if (ring && *ring) {
    long v = atol(ring);
    if (v < 2 || v > (1l << 24) || (v & (v - 1)) != 0) {
      fprintf(stderr, "coalcheck-gpu: error: COALCHECK_GPU_TRACE_RING=%s: not a power of two "
              "in 2..16777216; give the ring's size in records, e.g. 65536\n", ring);
      exit(CC_ERR_USAGE);
    }
    s->ring_cap = (uint32_t)v;
  }
  const char *tb = getenv("COALCHECK_GPU_TRACE_BUFFER");
  s->tbuf_mib = 512; /* MiB of device memory: 16M lane-affine warp accesses */
  if (tb && *tb) {
    char *end;
    unsigned long long v = strtoull(tb, &end, 10);
    if (*end != '\0' || tb[0] == '-' || v > (1ull << 20)) {
      fprintf(stderr, "coalcheck-gpu: error: COALCHECK_GPU_TRACE_BUFFER=%s: not a size in "
              "MiB; give e.g. 512 (0: no device buffer, every record through the ring)\n", tb);
      exit(CC_ERR_USAGE);
    }
    s->tbuf_mib = v;
  }
  const char *smp = getenv("COALCHECK_GPU_SAMPLE_CTAS");
  s->sample = 1;
  if (smp && *smp) {
    char *end;
    unsigned long v = strtoul(smp, &end, 10);
    if (*end != '\0' || v == 0 || v > UINT32_MAX || smp[0] == '-') {
      fprintf(stderr, "coalcheck-gpu: error: COALCHECK_GPU_SAMPLE_CTAS=%s: not a positive "
              "integer; give N to keep 1 CTA in N\n", smp);
      exit(CC_ERR_USAGE);
    }
    s->sample = (uint32_t)v;
  }
  const char *sh = getenv("COALCHECK_GPU_SHARDS");
  s->n_shards = sh && atoi(sh) > 0 ? (uint32_t)atoi(sh) : CC_GPU_DEFAULT_SHARDS;
  struct cc_err e = {0};
  if (cc_gpu_spaces_parse(getenv("COALCHECK_GPU_SPACES"), &s->spaces, &e) != CC_OK) {
    fprintf(stderr, "coalcheck-gpu: error: COALCHECK_GPU_SPACES: %s\n", e.msg);
    exit(CC_ERR_USAGE);
  }
  struct cc_gpu_filter_spec sel = {
    .regex = getenv("COALCHECK_KERNEL_REGEX"), .kernel_name = getenv("COALCHECK_KERNEL_NAME"),
    .name_base = getenv("COALCHECK_KERNEL_NAME_BASE"),
    .kernel_id = getenv("COALCHECK_KERNEL_ID"), .skip = getenv("COALCHECK_LAUNCH_SKIP"),
    .count = getenv("COALCHECK_LAUNCH_COUNT"), .from_env = 1};
  if (cc_gpu_filter_init_spec(&s->filter, &sel, &e) != CC_OK) {
    fprintf(stderr, "coalcheck-gpu: error: %s\n", e.msg);
    exit(CC_ERR_USAGE);
  }
  return s;
}
