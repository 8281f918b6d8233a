/* libFuzzer target: --arg specs and size expressions. Each line of the input is one
 * --arg (cc_launch_arg_parse); every buffer's SIZE is evaluated over the scalars parsed
 * (cc_launch_eval_size), and so is the first line taken as an expression. */
#include "fuzz.h"

#include "launch/launch.h"

#define MAX_ARGS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct cc_launch_arg args[MAX_ARGS];
  struct cc_err err = {CC_OK, ""};
  char *text = fuzz_string(data, size), *line = text, *first = text;
  size_t n = 0;
  uint64_t v;
  memset(args, 0, sizeof args);
  while (line && n < MAX_ARGS) {
    char *nl = strchr(line, '\n');
    if (nl)
      *nl = '\0';
    if (cc_launch_arg_parse(line, "base", &args[n], &err) == CC_OK)
      n++;
    else if (!err.msg[0])
      abort();
    line = nl ? nl + 1 : NULL;
  }
  for (size_t i = 0; i < n; i++)
    if (args[i].is_buffer)
      (void)cc_launch_eval_size(args[i].size_expr, args, n, &v, &err);
  (void)cc_launch_eval_size(first, args, n, &v, &err);
  for (size_t i = 0; i < n; i++)
    cc_launch_arg_release(&args[i]);
  free(text);
  return 0;
}
