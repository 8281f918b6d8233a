/* coalcheck fix --transform redistribute: redistributing a per-thread reduction over a warp (CGO 2015 Sec. 4.4, Algorithm 3).
 * Placeholder until the transformation lands: it refuses every kernel, saying so. */
#include "fix/fix_impl.h"

int cc_fix_redistribute(const struct cc_fix_opts *o, const struct cc_fix_measure *before,
              cc_fix_xcands *out, struct cc_err *err)
{
  (void)before;
  (void)out;
  return cc_err_set(err, CC_ERR_NO_FIX, "%s: redistributing a per-thread reduction over a warp (CGO 2015 Sec. 4.4, Algorithm 3) is not available in this build",
                    o->kernel_name);
}
