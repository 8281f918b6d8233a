/* coalcheck fix --transform soa: turning an array of structures into a structure of arrays.
 * Placeholder until the transformation lands: it refuses every kernel, saying so. */
#include "fix/fix_impl.h"

int cc_fix_soa(const struct cc_fix_opts *o, const struct cc_fix_measure *before,
              cc_fix_xcands *out, struct cc_err *err)
{
  (void)before;
  (void)out;
  return cc_err_set(err, CC_ERR_NO_FIX, "%s: turning an array of structures into a structure of arrays is not available in this build",
                    o->kernel_name);
}
