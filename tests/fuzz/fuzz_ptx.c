/* libFuzzer target: the PTX parser. A module that parses is printed, and the printed text
 * must parse again (ptx_print_module: "PTX that ptxas accepts"): a failure there aborts.
 * A failed parse must leave no module and say why. */
#include "fuzz.h"

#include "ptx/ptx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct ptx_module *m = NULL, *again = NULL;
  struct cc_err err = {CC_OK, ""};
  char *printed = NULL;
  size_t len = 0;
  FILE *fp;
  if (ptx_parse((const char *)data, size, "fuzz.ptx", &m, &err) != CC_OK) {
    if (m || !err.msg[0])
      abort(); /* a failure leaves no module and has a message */
    return 0;
  }
  fp = open_memstream(&printed, &len);
  if (!fp || ptx_print_module(m, fp) != 0 || fclose(fp) != 0)
    abort();
  if (ptx_parse(printed, len, "printed.ptx", &again, &err) != CC_OK) {
    fprintf(stderr, "fuzz_ptx: the printed module does not parse: %s\n--- printed:\n%s",
            err.msg, printed);
    abort();
  }
  ptx_module_free(again);
  ptx_module_free(m);
  free(printed);
  return 0;
}
