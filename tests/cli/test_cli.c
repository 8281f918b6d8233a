/* tests/cli: option parsing (command line and launch files), the launch-file tokenizer,
 * kernel-name matching (mangled, demangled, templates, namespaces), and the checks
 * cc_cli_run makes before it reads its input. The mangled names are the ones nvcc 13
 * wrote for this source (and c++filt's demangling of them):
 *   __global__ void transpose(float*, const float*, int)   _Z9transposePfPKfi
 *   namespace ns { template<int T> __global__ void tiled(float*); }
 *     tiled<32>                                             _ZN2ns5tiledILi32EEEvPf
 *     tiled<64>                                             _ZN2ns5tiledILi64EEEvPf
 *   namespace ns { __global__ void tiled(int*); }          _ZN2ns5tiledEPi
 *   template<typename T> __global__ void add(T*), T = unsigned   _Z3addIjEvPT_
 *   extern "C" __global__ void plain(int*)                 plain
 *   namespace { __global__ void anon(int*); }   _ZN36_GLOBAL__N__81c2f8b8_4_k_cu_68ed0c614anonEPi */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_impl.h"

#define ANON "_ZN36_GLOBAL__N__81c2f8b8_4_k_cu_68ed0c614anonEPi"

static void expect_msg(const struct cc_err *err, const char *needle)
{
  if (!strstr(err->msg, needle))
    fail_msg("message '%s' lacks '%s'", err->msg, needle);
}

/* ---- tokenizer -------------------------------------------------------------------- */

static void free_words(char **w, size_t n)
{
  for (size_t i = 0; i < n; i++)
    free(w[i]);
  free(w);
}

static void test_tokenize_launch_file(void **state)
{
  const char *text =
      "# naive transpose\n"
      "transpose.cu --kernel transpose_naive\n"
      "--grid 32,128 --block 32,8   # trailing comment\n"
      "--arg 'out=f32[n*n]:zero' --arg \"in=f32[n*n]:random:1\" --arg n=1024\n";
  static const char *const want[] = {"transpose.cu", "--kernel", "transpose_naive", "--grid",
                                     "32,128", "--block", "32,8", "--arg", "out=f32[n*n]:zero",
                                     "--arg", "in=f32[n*n]:random:1", "--arg", "n=1024"};
  static const uint32_t want_lines[] = {2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4};
  char **w;
  size_t n;
  uint32_t *lines;
  struct cc_err err = {0};
  assert_int_equal(cc_cli_tokenize(text, "t.launch", &w, &n, &lines, &err), CC_OK);
  assert_int_equal(n, 13);
  for (size_t i = 0; i < n; i++) {
    assert_string_equal(w[i], want[i]);
    assert_int_equal(lines[i], want_lines[i]);
  }
  free_words(w, n);
  free(lines);
}

static void test_tokenize_quoting(void **state)
{
  /* a\ b -> "a b"; "x\"y" -> x"y; 'it''s' -> its (adjacent quotes join); "" -> empty
   * word; a#b keeps its '#'; 'a\b' keeps the backslash; "\q" keeps it too (POSIX);
   * backslash-newline joins "--gr" and "id" */
  const char *text = "a\\ b \"x\\\"y\" 'it''s' \"\" a#b 'a\\b' \"\\q\" --gr\\\nid\n\\\n last";
  static const char *const want[] = {"a b", "x\"y", "its", "", "a#b", "a\\b", "\\q", "--grid",
                                     "last"};
  char **w;
  size_t n;
  struct cc_err err = {0};
  assert_int_equal(cc_cli_tokenize(text, "t", &w, &n, NULL, &err), CC_OK);
  assert_int_equal(n, 9);
  for (size_t i = 0; i < n; i++)
    assert_string_equal(w[i], want[i]);
  free_words(w, n);
  /* nothing but comments and blanks */
  assert_int_equal(cc_cli_tokenize("  # only\n\n#\n", "t", &w, &n, NULL, &err), CC_OK);
  assert_int_equal(n, 0);
  free_words(w, n);
  /* a backslash that ends the text escapes nothing: `sh -c 'printf "[%s]" x \'` prints
   * [x][\], so the words are "x" and "\" (not "x" and an empty word); after a word it
   * stays part of that word */
  assert_int_equal(cc_cli_tokenize("x \\", "t", &w, &n, NULL, &err), CC_OK);
  assert_int_equal(n, 2);
  assert_string_equal(w[0], "x");
  assert_string_equal(w[1], "\\");
  free_words(w, n);
  assert_int_equal(cc_cli_tokenize("ab\\", "t", &w, &n, NULL, &err), CC_OK);
  assert_int_equal(n, 1);
  assert_string_equal(w[0], "ab\\");
  free_words(w, n);
}

static void test_tokenize_errors(void **state)
{
  char **w = NULL;
  size_t n = 0;
  struct cc_err err = {0};
  /* the quote opens on line 2, column 7 */
  assert_int_equal(cc_cli_tokenize("a b\n--arg 'A=f32[4]:zero\n", "x.launch", &w, &n, NULL,
                                   &err), CC_ERR_INPUT);
  assert_string_equal(err.msg, "x.launch:2:7: unterminated single quote; close it with '");
  assert_int_equal(cc_cli_tokenize("\"abc", "y", &w, &n, NULL, &err), CC_ERR_INPUT);
  assert_string_equal(err.msg, "y:1:1: unterminated double quote; close it with \"");
}

/* ---- option parsing ------------------------------------------------------------------ */

static int parse(struct cc_run_opts *o, struct cc_err *err, int argc, const char **argv)
{
  return cc_cli_parse_run(argc, (char **)argv, o, err);
}

#define PARSE(o, err, ...)                                                               \
  parse(o, err, (int)(sizeof((const char *[]){__VA_ARGS__}) / sizeof(const char *)),     \
        (const char *[]){__VA_ARGS__})

static void test_options_all(void **state)
{
  struct cc_run_opts o;
  struct cc_err err = {0};
  int rc = PARSE(&o, &err, "coalcheck", "--grid", "32,8", "k.ptx", "--block=256", "--arg",
                 "n=4", "--arg", "-3", "-q", "--top", "5", "--max-insns", "1000", "--json",
                 "out.json", "--arch", "sm_80", "--nvcc-flags", "-O3 -DX=1", "--shared",
                 "0x400", "--dump", "A=a.bin", "--kernel", "ns::k<2>", "--max-memory", "3G");
  if (rc != CC_OK)
    fail_msg("%s", err.msg);
  assert_string_equal(o.input, "k.ptx");
  assert_int_equal(o.grid[0], 32);
  assert_int_equal(o.grid[1], 8);
  assert_int_equal(o.grid[2], 1); /* missing components are 1 */
  assert_int_equal(o.block[0], 256);
  assert_int_equal(o.block[1], 1);
  assert_int_equal(o.nargs, 2);
  assert_string_equal(o.args[0].name, "n");
  assert_null(o.args[1].name);
  assert_string_equal(o.args[1].value, "-3"); /* a negative value is not an option */
  assert_int_equal(o.quiet, 1);
  assert_int_equal(o.top, 5);
  assert_int_equal(o.max_insns, 1000);
  assert_true(o.max_memory == UINT64_C(3) << 30); /* 3 x 2^30 */
  assert_string_equal(o.json_path, "out.json");
  assert_string_equal(o.arch, "sm_80");
  assert_string_equal(o.nvcc_flags, "-O3 -DX=1");
  assert_int_equal(o.shared_bytes, 1024);
  assert_int_equal(o.ndumps, 1);
  assert_string_equal(o.dumps[0].name, "A");
  assert_string_equal(o.dumps[0].path, "a.bin");
  assert_string_equal(o.kernel, "ns::k<2>");
  assert_int_equal(o.help, 0);
  cc_cli_opts_release(&o);

  /* "--" ends the options: "-x.ptx" is then an INPUT */
  assert_int_equal(PARSE(&o, &err, "coalcheck", "--help", "--version", "--", "-x.ptx"), CC_OK);
  assert_int_equal(o.help, 1);
  assert_int_equal(o.version, 1);
  assert_string_equal(o.input, "-x.ptx");
  cc_cli_opts_release(&o);
}

static void expect_usage(struct cc_run_opts *o, struct cc_err *err, int rc, const char *needle)
{
  if (rc != CC_ERR_USAGE)
    fail_msg("expected a usage error, got %d (%s)", rc, err->msg);
  expect_msg(err, needle);
  cc_cli_opts_release(o);
}

static void test_options_errors(void **state)
{
  struct cc_run_opts o;
  struct cc_err err = {0};
  expect_usage(&o, &err, PARSE(&o, &err, "c", "k.ptx", "--bogus"), "unknown option '--bogus'");
  expect_usage(&o, &err, PARSE(&o, &err, "c", "--bogus=3"), "unknown option '--bogus'");
  expect_usage(&o, &err, PARSE(&o, &err, "c", "-x"), "unknown option '-x'");
  expect_usage(&o, &err, PARSE(&o, &err, "c", "k.ptx", "--grid"),
               "option '--grid' needs a value: --grid X[,Y[,Z]]");
  expect_usage(&o, &err, PARSE(&o, &err, "c", "--grid", "0"), "bad value '0' for --grid");
  expect_usage(&o, &err, PARSE(&o, &err, "c", "--grid", "1,2,3,4"), "at most 3 dimensions");
  expect_usage(&o, &err, PARSE(&o, &err, "c", "--block", "a"), "bad value 'a' for --block");
  expect_usage(&o, &err, PARSE(&o, &err, "c", "--block", "4,"), "bad value '4,' for --block");
  /* CUDA's limits are checked as the option is read; a value past them is not "not a
   * positive integer" (as 2^31 was called) */
  expect_usage(&o, &err, PARSE(&o, &err, "c", "--grid", "2147483648"),
               "--grid x = 2147483648 is above CUDA's limit of 2147483647; CUDA grids are at "
               "most 2147483647 x 65535 x 65535 CTAs");
  expect_usage(&o, &err, PARSE(&o, &err, "c", "--grid", "99999999999999999999"),
               "--grid x = 99999999999999999999 is above CUDA's limit of 2147483647");
  expect_usage(&o, &err, PARSE(&o, &err, "c", "--grid", "2147483647,65536"),
               "--grid y = 65536 is above CUDA's limit of 65535");
  expect_usage(&o, &err, PARSE(&o, &err, "c", "--grid", "1,1,0x10000"),
               "--grid z = 0x10000 is above CUDA's limit of 65535");
  expect_usage(&o, &err, PARSE(&o, &err, "c", "--block", "1,1,65"),
               "--block z = 65 is above CUDA's limit of 64; CUDA blocks are at most 1024 x "
               "1024 x 64 threads, 1024 in all");
  expect_usage(&o, &err, PARSE(&o, &err, "c", "--block", "32,32,2"),
               "--block 32,32,2 has 2048 threads; CUDA allows at most 1024 per CTA");
  assert_int_equal(PARSE(&o, &err, "c", "--grid", "2147483647,65535,65535", "--block",
                         "1024"), CC_OK); /* the limits themselves are fine */
  assert_int_equal(o.grid[0], 2147483647);
  assert_int_equal(o.grid[2], 65535);
  cc_cli_opts_release(&o);
  expect_usage(&o, &err, PARSE(&o, &err, "c", "--quiet=1"), "option '--quiet' takes no value");
  expect_usage(&o, &err, PARSE(&o, &err, "c", "a.ptx", "b.ptx"),
               "two inputs given: 'a.ptx' and 'b.ptx'");
  expect_usage(&o, &err, PARSE(&o, &err, "c", "--dump", "A"), "bad --dump 'A': expected NAME=PATH");
  expect_usage(&o, &err, PARSE(&o, &err, "c", "--arg", "A=f32[4]"), "bad --arg 'A=f32[4]'");
  expect_usage(&o, &err, PARSE(&o, &err, "c", "--top", "-1"), "bad value '-1' for --top");
  expect_usage(&o, &err, PARSE(&o, &err, "c", "--max-insns", "1x"),
               "bad value '1x' for --max-insns");
  expect_usage(&o, &err, PARSE(&o, &err, "c", "--shared", "4294967296"),
               "bad value '4294967296' for --shared");
  /* --max-memory: positive; 2^24 T = 2^64 bytes does not fit */
  expect_usage(&o, &err, PARSE(&o, &err, "c", "--max-memory", "0"),
               "bad value '0' for --max-memory: expected bytes");
  expect_usage(&o, &err, PARSE(&o, &err, "c", "--max-memory", "16777216T"),
               "bad value '16777216T' for --max-memory");
  expect_usage(&o, &err, PARSE(&o, &err, "c", "--max-memory", "4X"),
               "bad value '4X' for --max-memory");
  expect_usage(&o, &err, PARSE(&o, &err, "c", "--max-memory", "G"),
               "bad value 'G' for --max-memory");
  assert_int_equal(PARSE(&o, &err, "c", "--max-memory", "16777215T", "--max-memory", "0x10"),
                   CC_OK);
  assert_true(o.max_memory == 16); /* the last one wins */
  cc_cli_opts_release(&o);
  assert_int_equal(PARSE(&o, &err, "c", "--max-memory", "16777215T"), CC_OK);
  assert_true(o.max_memory == UINT64_C(16777215) << 40); /* (2^24 - 1) x 2^40 */
  cc_cli_opts_release(&o);
  expect_usage(&o, &err, PARSE(&o, &err, "c", "--launch", "a", "--launch=b"),
               "two --launch files given: 'a' and 'b'");
}

/* A refused value leaves its option as it was: --shared and --top used to store the
 * unset result of the failed parse (gcc -O2: -Wmaybe-uninitialized, issue 13). The
 * earlier option leaves a value on the stack where the unset one is read from. */
static void test_refused_value_keeps_option(void **state)
{
  struct cc_run_opts o;
  struct cc_err err = {0};
  assert_int_equal(PARSE(&o, &err, "c", "--shared", "4096", "--top", "x"), CC_ERR_USAGE);
  assert_int_equal(o.top, 0);
  cc_cli_opts_release(&o);
  assert_int_equal(PARSE(&o, &err, "c", "--top", "7", "--shared", "-"), CC_ERR_USAGE);
  assert_int_equal(o.shared_bytes, 0);
  cc_cli_opts_release(&o);
  assert_int_equal(PARSE(&o, &err, "c", "--top", "7", "--top", "1x"), CC_ERR_USAGE);
  assert_int_equal(o.top, 7);
  cc_cli_opts_release(&o);
  assert_int_equal(PARSE(&o, &err, "c", "--shared", "64", "--shared", "y"), CC_ERR_USAGE);
  assert_int_equal(o.shared_bytes, 64);
  cc_cli_opts_release(&o);
}

/* Writes text to dir/name; returns the path (owned). */
static char *write_file(const char *dir, const char *name, const char *text)
{
  char *path = malloc(strlen(dir) + strlen(name) + 2);
  FILE *fp;
  sprintf(path, "%s/%s", dir, name);
  fp = fopen(path, "w");
  assert_non_null(fp);
  fputs(text, fp);
  fclose(fp);
  return path;
}

static void test_launch_file_merge(void **state)
{
  char dir[] = "/tmp/cc-test-cli-XXXXXX", want[256];
  char *path;
  struct cc_run_opts o;
  struct cc_err err = {0};
  int rc;
  assert_non_null(mkdtemp(dir));
  path = write_file(dir, "k.launch",
                    "k.ptx --kernel k   # the input is beside this file\n"
                    "--grid 4 --block 32\n"
                    "--arg 'A=f32[n]:file:in.bin' --arg n=8 --arg 'B=u8[n]:zero'\n"
                    "--dump A=out.bin --json /abs/r.json -q\n");
  /* the command line wins: grid replaced, n replaced in place, a new arg appended */
  rc = PARSE(&o, &err, "coalcheck", "--arg", "n=16", "--launch", path, "--grid", "8",
             "--arg", "extra=1");
  if (rc != CC_OK)
    fail_msg("%s", err.msg);
  snprintf(want, sizeof want, "%s/k.ptx", dir);
  assert_string_equal(o.input, want);
  assert_string_equal(o.kernel, "k");
  assert_int_equal(o.grid[0], 8);
  assert_int_equal(o.block[0], 32);
  assert_int_equal(o.nargs, 4);
  assert_string_equal(o.args[0].name, "A");
  snprintf(want, sizeof want, "%s/in.bin", dir);
  assert_string_equal(o.args[0].init_text, want);
  /* where each --arg was written: the launch file's line, or nothing (command line) */
  snprintf(want, sizeof want, "%s:3", path);
  assert_string_equal(o.args[0].origin, want);
  assert_string_equal(o.args[2].origin, want);
  assert_null(o.args[1].origin); /* n=16 replaced the file's n=8 */
  assert_null(o.args[3].origin);
  assert_string_equal(o.args[1].name, "n");
  assert_string_equal(o.args[1].value, "16");
  assert_string_equal(o.args[2].name, "B");
  assert_string_equal(o.args[3].name, "extra");
  snprintf(want, sizeof want, "%s/out.bin", dir);
  assert_string_equal(o.dumps[0].path, want);
  assert_string_equal(o.json_path, "/abs/r.json");
  assert_int_equal(o.quiet, 1);
  assert_string_equal(o.launch_file, path);
  cc_cli_opts_release(&o);

  /* an INPUT on the command line replaces the file's */
  rc = PARSE(&o, &err, "coalcheck", "--launch", path, "other.ptx");
  assert_int_equal(rc, CC_OK);
  assert_string_equal(o.input, "other.ptx");
  cc_cli_opts_release(&o);
  unlink(path);
  free(path);

  /* errors inside the file name the file and the line */
  path = write_file(dir, "bad.launch", "k.ptx\n--grid 4 --bogus\n");
  expect_usage(&o, &err, PARSE(&o, &err, "coalcheck", "--launch", path),
               "bad.launch:2: unknown option '--bogus'");
  unlink(path);
  free(path);
  path = write_file(dir, "grid.launch", "k.ptx\n--block 32 --grid 4,65536\n");
  expect_usage(&o, &err, PARSE(&o, &err, "coalcheck", "--launch", path),
               "grid.launch:2: --grid y = 65536 is above CUDA's limit of 65535");
  unlink(path);
  free(path);
  path = write_file(dir, "nest.launch", "--launch other.launch\n");
  expect_usage(&o, &err, PARSE(&o, &err, "coalcheck", "--launch", path), "do not nest");
  unlink(path);
  free(path);
  path = write_file(dir, "quote.launch", "k.ptx\n  --arg 'n=3\n");
  assert_int_equal(PARSE(&o, &err, "coalcheck", "--launch", path), CC_ERR_INPUT);
  expect_msg(&err, "quote.launch:2:9: unterminated single quote");
  cc_cli_opts_release(&o);
  unlink(path);
  free(path);
  path = write_file(dir, "two.launch", "a.ptx b.ptx\n");
  expect_usage(&o, &err, PARSE(&o, &err, "coalcheck", "--launch", path),
               "two.launch:1: two inputs given");
  unlink(path);
  free(path);
  assert_int_equal(rmdir(dir), 0);

  assert_int_equal(PARSE(&o, &err, "coalcheck", "--launch", "/nonexistent/x.launch"),
                   CC_ERR_INPUT);
  expect_msg(&err, "cannot read launch file: cannot read /nonexistent/x.launch");
  cc_cli_opts_release(&o);
}

/* The list is docs/usage.md's option table, written out by hand (not read from the
 * option table under test), so an option dropped from --help fails here. */
static void test_help_lists_every_option(void **state)
{
  static const char *const names[] = {"--kernel NAME", "--grid X[,Y[,Z]]", "--block X[,Y[,Z]]",
                                      "--arg SPEC", "--shared BYTES", "--dump NAME=PATH",
                                      "--launch FILE", "--json FILE", "--arch ARCH",
                                      "--l1-cache on|off", "--smem-bank-width 4|8",
                                      "--trace FILE", "--nvcc-flags FLAGS", "--max-insns N",
                                      "--max-memory BYTES", "--top N", "--backend emu|gpu",
                                      "--gpu-mode sanitizer|inline", "-q, --quiet",
                                      "-h, --help", "--version",
                                      /* the executable INPUT's (usage.md, GPU backend) */
                                      "coalcheck [GPU OPTIONS] ./app [ARGS]",
                                      "--kernel-name NAME", "--kernel-id ::NAME:N", "--launch-skip N",
                                      "--launch-count N", "--gpu-json FILE", "--sample-ctas N",
                                      "--spaces LIST"};
  char *buf = NULL;
  size_t len = 0;
  FILE *fp = open_memstream(&buf, &len);
  cc_cli_print_help(fp);
  fclose(fp);
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (!strstr(buf, names[i]))
      fail_msg("--help lacks '%s'", names[i]);
  free(buf);
}

/* ---- kernel names -------------------------------------------------------------------- */

static void test_demangle(void **state)
{
  char *s = cc_cli_demangle("_Z9transposePfPKfi");
  assert_string_equal(s, "transpose(float*, float const*, int)");
  free(s);
  assert_null(cc_cli_demangle("plain"));
  assert_null(cc_cli_demangle("_Znot_valid_"));
  s = cc_cli_source_name("_ZN2ns5tiledILi32EEEvPf"); /* "void ns::tiled<32>(float*)" */
  assert_string_equal(s, "ns::tiled<32>");
  free(s);
  s = cc_cli_source_name("_Z3addIjEvPT_"); /* "void add<unsigned int>(unsigned int*)" */
  assert_string_equal(s, "add<unsigned int>");
  free(s);
  s = cc_cli_source_name(ANON); /* "(anonymous namespace)::anon(int*)" */
  assert_string_equal(s, "(anonymous namespace)::anon");
  free(s);
  s = cc_cli_source_name("plain");
  assert_string_equal(s, "plain");
  free(s);
}

static void test_kernel_matches(void **state)
{
  assert_true(cc_cli_kernel_matches("_Z9transposePfPKfi", "transpose"));
  assert_true(cc_cli_kernel_matches("_Z9transposePfPKfi", "_Z9transposePfPKfi"));
  assert_false(cc_cli_kernel_matches("_Z9transposePfPKfi", "transpos"));
  assert_false(cc_cli_kernel_matches("_Z9transposePfPKfi", "transpose(float*, float const*, int)"));
  assert_true(cc_cli_kernel_matches("_ZN2ns5tiledILi32EEEvPf", "ns::tiled<32>"));
  assert_true(cc_cli_kernel_matches("_ZN2ns5tiledILi32EEEvPf", "ns::tiled"));
  assert_true(cc_cli_kernel_matches("_ZN2ns5tiledILi32EEEvPf", "tiled<32>"));
  assert_true(cc_cli_kernel_matches("_ZN2ns5tiledILi32EEEvPf", "tiled"));
  assert_false(cc_cli_kernel_matches("_ZN2ns5tiledILi32EEEvPf", "tiled<64>"));
  assert_false(cc_cli_kernel_matches("_ZN2ns5tiledILi32EEEvPf", "void"));
  /* reduce5<256u> (an unsigned template argument, as the demangler writes it) is named
     as in the source, reduce5<256>, or with any suffix; other numbers and a digit inside
     an identifier (k1 is not k1u) do not match */
  assert_true(cc_cli_kernel_matches("_Z7reduce5ILj256EEvPKfPfj", "reduce5<256>"));
  assert_true(cc_cli_kernel_matches("_Z7reduce5ILj256EEvPKfPfj", "reduce5<256u>"));
  assert_true(cc_cli_kernel_matches("_Z7reduce5ILj256EEvPKfPfj", "reduce5<256UL>"));
  assert_true(cc_cli_kernel_matches("_Z7reduce5ILj256EEvPKfPfj", "reduce5< 256 >"));
  assert_false(cc_cli_kernel_matches("_Z7reduce5ILj256EEvPKfPfj", "reduce5<25>"));
  assert_false(cc_cli_kernel_matches("_Z7reduce5ILj256EEvPKfPfj", "reduce5<2560>"));
  assert_false(cc_cli_kernel_matches("_Z3k1uPf", "k1"));
  assert_true(cc_cli_kernel_matches("_Z3addIjEvPT_", "add<unsigned int>"));
  assert_true(cc_cli_kernel_matches("_Z3addIjEvPT_", "add"));
  assert_true(cc_cli_kernel_matches(ANON, "anon"));
  assert_true(cc_cli_kernel_matches("plain", "plain"));
  assert_false(cc_cli_kernel_matches("plain", "plai"));
}

/* A module with the kernels of the file comment, plus a .func that is not a kernel. */
static struct ptx_function funcs[8];
static struct ptx_module module = {.path = "k.ptx", .funcs = funcs, .nfuncs = 8};

static int setup_module(void **state)
{
  static const char *const names[] = {"_Z9transposePfPKfi", "_ZN2ns5tiledILi32EEEvPf",
                                      "_ZN2ns5tiledILi64EEEvPf", "_ZN2ns5tiledEPi",
                                      "_Z3addIjEvPT_", "plain", ANON, "_Z6helperv"};
  for (int i = 0; i < 8; i++) {
    funcs[i].name = (char *)names[i];
    funcs[i].is_entry = i < 7;
    funcs[i].has_body = 1;
  }
  return 0;
}

static const char *find(const char *name, int want_rc, struct cc_err *err)
{
  const struct ptx_function *k = NULL;
  int rc = cc_cli_find_kernel(&module, name, &k, err);
  if (rc != want_rc)
    fail_msg("'%s': expected %d, got %d (%s)", name ? name : "(none)", want_rc, rc, err->msg);
  return k ? k->name : NULL;
}

static void test_find_kernel(void **state)
{
  struct cc_err err = {0};
  struct ptx_module one = {.path = "one.ptx", .funcs = funcs + 5, .nfuncs = 1};
  struct ptx_module none = {.path = "none.ptx", .funcs = funcs + 7, .nfuncs = 1};
  const struct ptx_function *k;
  assert_string_equal(find("transpose", CC_OK, &err), "_Z9transposePfPKfi");
  assert_string_equal(find("ns::tiled<64>", CC_OK, &err), "_ZN2ns5tiledILi64EEEvPf");
  assert_string_equal(find("tiled<32>", CC_OK, &err), "_ZN2ns5tiledILi32EEEvPf");
  assert_string_equal(find("_ZN2ns5tiledEPi", CC_OK, &err), "_ZN2ns5tiledEPi");
  assert_string_equal(find("add", CC_OK, &err), "_Z3addIjEvPT_");
  assert_string_equal(find("anon", CC_OK, &err), ANON);
  /* three kernels are called tiled: the message lists them */
  assert_null(find("tiled", CC_ERR_INPUT, &err));
  assert_string_equal(err.msg,
                      "kernel name 'tiled' is ambiguous in k.ptx, it matches: ns::tiled<32> "
                      "(_ZN2ns5tiledILi32EEEvPf), ns::tiled<64> (_ZN2ns5tiledILi64EEEvPf), "
                      "ns::tiled (_ZN2ns5tiledEPi); pass a qualified name with template "
                      "arguments, or the PTX name");
  /* no match: the kernels are listed (not the .func) */
  assert_null(find("helper", CC_ERR_INPUT, &err));
  expect_msg(&err, "no kernel called 'helper' in k.ptx; its kernels: transpose "
                   "(_Z9transposePfPKfi), ns::tiled<32>");
  expect_msg(&err, "plain, (anonymous namespace)::anon (" ANON ")");
  /* no --kernel: fine with one kernel, an error with several */
  assert_null(find(NULL, CC_ERR_INPUT, &err));
  expect_msg(&err, "k.ptx has 7 kernels; choose one with --kernel: transpose");
  assert_int_equal(cc_cli_find_kernel(&one, NULL, &k, &err), CC_OK);
  assert_string_equal(k->name, "plain");
  assert_int_equal(cc_cli_find_kernel(&none, NULL, &k, &err), CC_ERR_INPUT);
  assert_string_equal(err.msg, "none.ptx has no kernel (.entry); nothing to run");
}

/* ---- nvcc ---------------------------------------------------------------------------- */

static void test_find_program(void **state)
{
  char d1[] = "/tmp/cc-test-path1-XXXXXX", d2[] = "/tmp/cc-test-path2-XXXXXX";
  char path[128], *exe, *plain, *found;
  assert_non_null(mkdtemp(d1));
  assert_non_null(mkdtemp(d2));
  plain = write_file(d1, "tool", "not executable\n"); /* mode 0644: skipped */
  exe = write_file(d2, "tool", "#!/bin/sh\n");
  assert_int_equal(chmod(exe, 0755), 0);
  snprintf(path, sizeof path, "/nonexistent:%s:%s", d1, d2);
  found = cc_cli_find_program("tool", path, NULL);
  assert_non_null(found);
  assert_string_equal(found, exe);
  free(found);
  /* not on PATH: the fallback, when it is executable */
  found = cc_cli_find_program("tool", "/nonexistent", exe);
  assert_string_equal(found, exe);
  free(found);
  assert_null(cc_cli_find_program("tool", "/nonexistent", plain));
  assert_null(cc_cli_find_program("tool", NULL, "/nonexistent/tool"));
  unlink(plain);
  unlink(exe);
  free(plain);
  free(exe);
  rmdir(d1);
  rmdir(d2);
}

/* No nvcc, or one that cannot be started (needs no CUDA toolkit). */
static void test_nvcc_missing(void **state)
{
  char *ptx = NULL;
  size_t len = 0;
  struct cc_err err = {0};
  assert_int_equal(cc_cli_nvcc_compile(NULL, "k.cu", NULL, &ptx, &len, &err), CC_ERR_TOOL);
  assert_string_equal(err.msg, "cannot compile k.cu: nvcc is not on PATH nor at "
                               "/usr/local/cuda/bin/nvcc; install the CUDA toolkit, add its "
                               "bin folder to PATH, or pass a .ptx file");
  assert_int_equal(cc_cli_nvcc_compile("/nonexistent/nvcc", "k.cu", NULL, &ptx, &len, &err),
                   CC_ERR_TOOL);
  assert_string_equal(err.msg, "cannot run /nonexistent/nvcc: No such file or directory");
  assert_null(ptx);
  /* a "compiler" that succeeds without writing the PTX: /bin/true */
  if (access("/bin/true", X_OK) == 0) {
    const char *old = getenv("TMPDIR");
    char *saved = old ? strdup(old) : NULL;
    assert_int_equal(cc_cli_nvcc_compile("/bin/true", "k.cu", NULL, &ptx, &len, &err),
                     CC_ERR_TOOL);
    expect_msg(&err, "nvcc reported success on k.cu but wrote no PTX: cannot read ");
    /* no temporary folder can be made */
    setenv("TMPDIR", "/nonexistent", 1);
    assert_int_equal(cc_cli_nvcc_compile("/bin/true", "k.cu", NULL, &ptx, &len, &err),
                     CC_ERR_IO);
    expect_msg(&err, "cannot create a temporary folder in /nonexistent");
    if (saved)
      setenv("TMPDIR", saved, 1);
    else
      unsetenv("TMPDIR");
    free(saved);
  }
}

static void test_nvcc_compile(void **state)
{
  char dir[] = "/tmp/cc-test-nvcc-XXXXXX", *cu, *bad, *ptx = NULL, *nvcc = cc_cli_find_nvcc();
  size_t len = 0;
  struct cc_err err = {0};
  if (!nvcc)
    skip(); /* no CUDA toolkit on this machine */
  free(nvcc);
  assert_non_null(mkdtemp(dir));
  cu = write_file(dir, "k.cu", "__global__ void k(int *a) { a[threadIdx.x] = 1; }\n");
  nvcc = cc_cli_find_nvcc();
  if (cc_cli_nvcc_compile(nvcc, cu, "-DUNUSED=1", &ptx, &len, &err) != CC_OK)
    fail_msg("%s", err.msg);
  /* -lineinfo puts .loc lines in; -arch=sm_90 the target */
  assert_non_null(strstr(ptx, ".target sm_90"));
  assert_non_null(strstr(ptx, ".loc"));
  assert_non_null(strstr(ptx, ".entry _Z1kPi"));
  assert_int_equal(strlen(ptx), len);
  free(ptx);
  bad = write_file(dir, "bad.cu", "__global__ void k(int *a) { a[0] = ; }\n");
  assert_int_equal(cc_cli_nvcc_compile(nvcc, bad, NULL, &ptx, &len, &err), CC_ERR_TOOL);
  expect_msg(&err, "nvcc failed on ");
  expect_msg(&err, "(exit status 1):\n");
  expect_msg(&err, "expected an expression"); /* nvcc's own words */
  assert_null(ptx);
  assert_int_equal(cc_cli_nvcc_compile(nvcc, cu, "'-O3", &ptx, &len, &err), CC_ERR_USAGE);
  expect_msg(&err, "--nvcc-flags:1:1: unterminated single quote");
  free(nvcc);
  unlink(cu);
  unlink(bad);
  free(cu);
  free(bad);
  assert_int_equal(rmdir(dir), 0); /* nothing but our files was there */
}

/* A long kernel list is cut visibly: 60 names of 33 characters need about 2,100
 * characters, more than the list's 1,200. */
static void test_find_kernel_long_list(void **state)
{
  static struct ptx_function many[60];
  static char names[60][40];
  struct ptx_module m = {.path = "many.ptx", .funcs = many, .nfuncs = 60};
  const struct ptx_function *k;
  struct cc_err err = {0};
  size_t len;
  for (int i = 0; i < 60; i++) {
    snprintf(names[i], sizeof names[i], "kernel_with_a_rather_long_name_%02d", i);
    many[i].name = names[i];
    many[i].is_entry = 1;
  }
  assert_int_equal(cc_cli_find_kernel(&m, "x", &k, &err), CC_ERR_INPUT);
  expect_msg(&err, "no kernel called 'x' in many.ptx; its kernels: "
                   "kernel_with_a_rather_long_name_00, kernel_with_a_rather_long_name_01");
  len = strlen(err.msg);
  assert_true(len > 5);
  assert_string_equal(err.msg + len - 5, ", ...");
}

/* ---- cc_cli_run's checks before any input is read -------------------------------------- */

static void expect_run(struct cc_run_opts *o, int want_rc, const char *needle)
{
  struct cc_err err = {0};
  int rc = cc_cli_run(o, stdout, &err);
  if (rc != want_rc)
    fail_msg("expected %d, got %d (%s)", want_rc, rc, err.msg);
  expect_msg(&err, needle);
}

static void test_run_checks(void **state)
{
  struct cc_run_opts o;
  memset(&o, 0, sizeof o);
  expect_run(&o, CC_ERR_USAGE, "no input given");
  /* an INPUT that does not exist is named before the missing options (issue 13: "coalcheck
   * bogus" said "missing --grid") */
  o.input = "/nonexistent/bogus";
  expect_run(&o, CC_ERR_INPUT, "cannot read /nonexistent/bogus: No such file or directory");
  o.input = CC_SOURCE_DIR "/tests/e2e/data/kernels.ptx";
  expect_run(&o, CC_ERR_USAGE, "missing --grid X[,Y[,Z]]");
  o.grid[0] = o.grid[1] = o.grid[2] = 1;
  expect_run(&o, CC_ERR_USAGE, "missing --block X[,Y[,Z]]");
  o.block[0] = 64;
  o.block[1] = 32;
  o.block[2] = 1; /* 2048 threads */
  expect_run(&o, CC_ERR_USAGE, "--block 64,32,1 has 2048 threads; CUDA allows at most 1024");
  o.block[0] = 1025;
  o.block[1] = 1;
  expect_run(&o, CC_ERR_USAGE, "--block x = 1025 is above CUDA's limit of 1024");
  o.block[0] = 32;
  o.block[2] = 65;
  expect_run(&o, CC_ERR_USAGE, "--block z = 65 is above CUDA's limit of 64");
  o.block[2] = 1;
  o.grid[1] = 65536;
  expect_run(&o, CC_ERR_USAGE, "--grid y = 65536 is above CUDA's limit of 65535");
  o.grid[1] = 1;
  o.input = CC_SOURCE_DIR "/README.md";
  expect_run(&o, CC_ERR_USAGE, "cannot tell what '" CC_SOURCE_DIR "/README.md' is");
  o.input = "/nonexistent/k.ptx";
  expect_run(&o, CC_ERR_INPUT, "/nonexistent/k.ptx");
  o.input = "/nonexistent/k.cu";
  expect_run(&o, CC_ERR_INPUT, "cannot read /nonexistent/k.cu");
  /* an output on the input is refused before anything runs */
  o.json_path = "/nonexistent/k.cu";
  expect_run(&o, CC_ERR_USAGE, "--json /nonexistent/k.cu is INPUT /nonexistent/k.cu");
  /* an unwritable --json fails before the input is read */
  o.input = CC_SOURCE_DIR "/tests/e2e/data/kernels.ptx";
  o.json_path = "/nonexistent/dir/r.json";
  expect_run(&o, CC_ERR_IO, "cannot write /nonexistent/dir/r.json");
}

/* An output on an input's file, or two outputs on one file, are refused: the same name,
 * another spelling of it, a hard link, a symbolic link; not two names of /dev/null, nor
 * standard output. */
static void test_paths_one_file(void **state)
{
  char dir[] = "/tmp/cc-test-paths-XXXXXX", k[128], k2[128], hard[128], sym[128], other[128];
  char alias[160], out[128];
  struct cc_err err = {0};
  FILE *fp;
  assert_non_null(mkdtemp(dir));
  snprintf(k, sizeof k, "%s/k.ptx", dir);
  fp = fopen(k, "w");
  assert_non_null(fp);
  fclose(fp);
  snprintf(k2, sizeof k2, "%s/./k.ptx", dir);
  snprintf(hard, sizeof hard, "%s/hard.ptx", dir);
  snprintf(sym, sizeof sym, "%s/sym.ptx", dir);
  snprintf(other, sizeof other, "%s/r.json", dir);
  snprintf(alias, sizeof alias, "%s/../%s/r.json", dir, strrchr(dir, '/') + 1);
  snprintf(out, sizeof out, "%s/out.bin", dir);
  assert_int_equal(link(k, hard), 0);
  assert_int_equal(symlink(k, sym), 0);
  {
    const struct cc_cli_path in[] = {{"INPUT", k}};
    struct cc_cli_path outs[] = {{"--json", k2}, {"--dump out=", out}};
    assert_int_equal(cc_cli_check_paths(in, 1, outs, 2, &err), CC_ERR_USAGE);
    expect_msg(&err, "--json ");
    expect_msg(&err, "is INPUT ");
    expect_msg(&err, "writing it would destroy an input; give the output another path");
    outs[0].path = hard;
    assert_int_equal(cc_cli_check_paths(in, 1, outs, 2, &err), CC_ERR_USAGE);
    outs[0].path = sym;
    assert_int_equal(cc_cli_check_paths(in, 1, outs, 2, &err), CC_ERR_USAGE);
    /* two outputs that do not exist yet: one file by its canonical folder */
    outs[0].path = other;
    outs[1].path = alias;
    assert_int_equal(cc_cli_check_paths(in, 1, outs, 2, &err), CC_ERR_USAGE);
    expect_msg(&err, "and --dump out=");
    expect_msg(&err, "are one file: one output would replace the other");
    /* fine: different files, standard output twice, /dev/null twice, no path */
    outs[1].path = out;
    assert_int_equal(cc_cli_check_paths(in, 1, outs, 2, &err), CC_OK);
    outs[0].path = outs[1].path = "-";
    assert_int_equal(cc_cli_check_paths(in, 1, outs, 2, &err), CC_OK);
    outs[0].path = outs[1].path = "/dev/null";
    assert_int_equal(cc_cli_check_paths(in, 1, outs, 2, &err), CC_OK);
    outs[0].path = NULL;
    assert_int_equal(cc_cli_check_paths(in, 1, outs, 2, &err), CC_OK);
  }
  unlink(sym);
  unlink(hard);
  unlink(k);
  assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_tokenize_launch_file),
    cmocka_unit_test(test_tokenize_quoting),
    cmocka_unit_test(test_tokenize_errors),
    cmocka_unit_test(test_options_all),
    cmocka_unit_test(test_options_errors),
    cmocka_unit_test(test_refused_value_keeps_option),
    cmocka_unit_test(test_launch_file_merge),
    cmocka_unit_test(test_help_lists_every_option),
    cmocka_unit_test(test_demangle),
    cmocka_unit_test(test_kernel_matches),
    cmocka_unit_test_setup(test_find_kernel, setup_module),
    cmocka_unit_test(test_find_kernel_long_list),
    cmocka_unit_test(test_find_program),
    cmocka_unit_test(test_nvcc_missing),
    cmocka_unit_test(test_nvcc_compile),
    cmocka_unit_test(test_run_checks),
    cmocka_unit_test(test_paths_one_file),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
