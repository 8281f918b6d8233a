/* coalcheck fix --transform tile: staging a transposition through a shared-memory tile.
 * Placeholder until the transformation lands: it refuses every kernel, saying so. */
#include "fix/fix_impl.h"

int cc_fix_tile(const struct cc_fix_opts *o, const struct cc_fix_measure *before,
              cc_fix_xcands *out, struct cc_err *err)
{
  (void)before;
  (void)out;
  return cc_err_set(err, CC_ERR_NO_FIX, "%s: staging a transposition through a shared-memory tile is not available in this build",
                    o->kernel_name);
}
