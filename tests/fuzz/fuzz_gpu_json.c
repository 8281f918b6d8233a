/* libFuzzer target: the GPU backend's JSON report as `coalcheck import` reads it
 * (cc_cli_gpu_import into an sm_90 analysis); a report that imports is then written as
 * the JSON and the text report. */
#include "fuzz.h"

#include "cli/gpu.h"
#include "report/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char *text = fuzz_string(data, size), *out = NULL;
  size_t len = 0;
  struct cc_model *m = NULL;
  struct cc_analysis *an = NULL;
  struct cc_err err = {CC_OK, ""};
  if (cc_model_get("sm_90", NULL, &m, &err) != CC_OK)
    abort();
  if (cc_cli_gpu_import(text, "fuzz.json", m, &an, &err) == CC_OK) {
    FILE *fp = open_memstream(&out, &len);
    free(cc_report_json_string(an, "fuzz"));
    if (!fp || cc_report_text(fp, an, &err) != CC_OK || fclose(fp) != 0)
      abort();
    free(out);
  } else if (an || !err.msg[0]) {
    abort();
  }
  cc_analysis_free(an);
  cc_model_free(m);
  free(text);
  return 0;
}
