/* libFuzzer target: launch files. The input is written to a scratch file and read with
 * `coalcheck --launch FILE` as the command line would (cc_cli_parse_run: the tokenizer,
 * the option table, --arg and --dump parsing); only parsing, nothing runs. */
#include "fuzz.h"

#include "cli/cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char *argv[] = {"coalcheck", "--launch", NULL, NULL};
  struct cc_run_opts o;
  struct cc_err err = {CC_OK, ""};
  argv[2] = (char *)fuzz_file("fuzz.launch", data, size);
  if (cc_cli_parse_run(3, argv, &o, &err) != CC_OK && !err.msg[0])
    abort(); /* every failure says why */
  cc_cli_opts_release(&o);
  return 0;
}
