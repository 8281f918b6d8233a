/* Progress of a long emulated run on stderr (emu.h, enum cc_emu_progress): nothing for
 * the first progress_after_s seconds, then CTAs done / total, warp instructions, their
 * rate, the time, and the running CTA's use of its default budget; as a line every
 * progress_every_s, or as one line rewritten in place on a terminal. */
#include <inttypes.h>
#include <stdio.h>

#include "emu/emu_internal.h"

#define DEFAULT_AFTER_S 2.0
#define DEFAULT_EVERY_S 10.0
#define TERMINAL_EVERY_S 0.25

static double seconds_since(const struct timespec *t0, const struct timespec *t1)
{
  return (double)(t1->tv_sec - t0->tv_sec) + 1e-9 * (double)(t1->tv_nsec - t0->tv_nsec);
}

void cc_emu_progress_timing(struct cc_emu *emu, double after_s, double every_s)
{
  emu->progress_after_s = after_s > 0 ? after_s : 0;
  emu->progress_every_s = every_s > 0 ? every_s : 0;
}

void emu_progress_start(struct emu_progress *p, const struct cc_emu *emu, const char *kernel,
                        uint64_t ctas_total)
{
  p->mode = emu->opts.progress;
  p->after = emu->progress_after_s > 0 ? emu->progress_after_s : DEFAULT_AFTER_S;
  p->every = emu->progress_every_s > 0 ? emu->progress_every_s
             : p->mode == CC_EMU_PROGRESS_TERMINAL ? TERMINAL_EVERY_S : DEFAULT_EVERY_S;
  p->kernel = kernel;
  p->ctas_total = ctas_total;
  p->shown = 0;
  clock_gettime(CLOCK_MONOTONIC, &p->t0);
  p->last = p->t0;
}

/* "spin: 0/1 blocks, 126.4 M warp instructions, 10.8 M/s, 11.7 s" (+ the CTA's budget) */
static void write_state(const struct emu_progress *p, const struct timespec *now,
                        uint64_t ctas_done, uint64_t warp_insns, double cta_used)
{
  double t = seconds_since(&p->t0, now);
  char budget[64] = "";
  if (cta_used >= 0)
    snprintf(budget, sizeof budget, "; this block at %.0f%% of its budget", 100 * cta_used);
  fprintf(stderr, "coalcheck: %s: %" PRIu64 "/%" PRIu64 " blocks, %.1f M warp instructions, "
          "%.1f M/s, %.1f s%s", p->kernel, ctas_done, p->ctas_total, (double)warp_insns / 1e6,
          t > 0 ? (double)warp_insns / 1e6 / t : 0.0, t, budget);
}

void emu_progress_note(struct emu_progress *p, uint64_t ctas_done, uint64_t warp_insns,
                       double cta_used)
{
  struct timespec now;
  if (p->mode == CC_EMU_PROGRESS_NONE) return;
  clock_gettime(CLOCK_MONOTONIC, &now);
  if (seconds_since(&p->t0, &now) < p->after) return;
  if (p->shown && seconds_since(&p->last, &now) < p->every) return;
  p->last = now;
  p->shown = 1;
  if (p->mode == CC_EMU_PROGRESS_TERMINAL) fputc('\r', stderr);
  write_state(p, &now, ctas_done, warp_insns, cta_used);
  fputs(p->mode == CC_EMU_PROGRESS_TERMINAL ? "\033[K" : "\n", stderr);
  fflush(stderr);
}

void emu_progress_end(struct emu_progress *p, int ok, uint64_t ctas_done, uint64_t warp_insns)
{
  struct timespec now;
  if (p->mode == CC_EMU_PROGRESS_NONE || !p->shown) return;
  clock_gettime(CLOCK_MONOTONIC, &now);
  if (p->mode == CC_EMU_PROGRESS_TERMINAL) fputc('\r', stderr);
  write_state(p, &now, ctas_done, warp_insns, -1);
  fprintf(stderr, ": %s%s\n", ok ? "done" : "stopped",
          p->mode == CC_EMU_PROGRESS_TERMINAL ? "\033[K" : "");
  fflush(stderr);
}
