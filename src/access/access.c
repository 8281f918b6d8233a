/* Names of the access record's enumerations: see access.h. */
#include "access/access.h"

const char *cc_space_name(enum cc_space space)
{
  switch (space) {
  case CC_SPACE_GLOBAL: return "global";
  case CC_SPACE_SHARED: return "shared";
  case CC_SPACE_LOCAL: return "local";
  case CC_SPACE_COUNT: break;
  }
  return "?";
}

const char *cc_access_kind_name(enum cc_access_kind kind)
{
  switch (kind) {
  case CC_ACCESS_LOAD: return "load";
  case CC_ACCESS_STORE: return "store";
  case CC_ACCESS_ATOMIC: return "atomic";
  case CC_ACCESS_REDUCTION: return "reduction";
  }
  return "?";
}
