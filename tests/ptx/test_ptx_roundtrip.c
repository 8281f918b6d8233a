/* Round trip over real nvcc output: every .cu under tests/ptx/data/ (small realistic
 * kernels: shared-memory transpose, shfl/atomic reduction, __noinline__ calls, local
 * arrays, texture objects, inlined helpers) and every examples/ .cu of the repository is
 * compiled with `nvcc -ptx -lineinfo -arch=sm_90 -O3` (the data files also with -G),
 * parsed, printed and fed to `ptxas -arch=sm_90`: the machine code of every function must
 * be byte-identical to that of nvcc's own PTX (the printed text means the same). The
 * printed text is parsed again: instruction counts and every opcode_text survive, and
 * printing the second parse gives the same text. Skipped (with a message) when nvcc is
 * not installed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "ptx/ptx_test_util.h"
#include "util/fileio.h"

struct src_list {
  char **paths;
  size_t n, cap;
};

static void list_add(struct src_list *l, const char *path) {
  if (l->n == l->cap) {
    l->cap = l->cap ? l->cap * 2 : 16;
    l->paths = realloc(l->paths, l->cap * sizeof *l->paths);
  }
  l->paths[l->n++] = strdup(path);
}

static int ends_with(const char *s, const char *suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* Adds the .cu files of dir, and of its subfolders when depth > 0. */
static void list_cu(struct src_list *l, const char *dir, int depth) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  char p[4096];
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    struct stat st;
    if (stat(p, &st) != 0) continue;
    if (S_ISDIR(st.st_mode) && depth > 0) list_cu(l, p, depth - 1);
    else if (S_ISREG(st.st_mode) && ends_with(e->d_name, ".cu")) list_add(l, p);
  }
  closedir(d);
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static void list_free(struct src_list *l) {
  for (size_t i = 0; i < l->n; i++) free(l->paths[i]);
  free(l->paths);
}

/* What a kernel file must contain, to show that the data files exercise what they claim. */
static int module_has(const struct ptx_module *m, const char *prefix) {
  for (uint32_t i = 0; i < m->nfuncs; i++)
    for (uint32_t k = 0; k < m->funcs[i].ninsns; k++)
      if (strncmp(m->funcs[i].insns[k].opcode_text, prefix, strlen(prefix)) == 0) return 1;
  return 0;
}

static int module_has_inlined_loc(const struct ptx_module *m) {
  for (uint32_t i = 0; i < m->nfuncs; i++)
    for (uint32_t k = 0; k < m->funcs[i].nlocs; k++)
      if (m->funcs[i].locs[k].inl_file) return 1;
  return 0;
}

static void check_features(const char *src, const char *flags, const struct ptx_module *m) {
  if (strstr(flags, "-G")) {
    assert_non_null(m->sections); /* debug builds: .debug_info, .debug_abbrev, ... */
  } else if (ends_with(src, "/tests/ptx/data/reduce.cu")) {
    assert_true(module_has(m, "shfl.sync.down"));
    assert_true(module_has(m, "atom.global.add.f32"));
    assert_true(module_has(m, "atom.shared.add"));
    assert_true(module_has(m, "vote.sync.ballot"));
    assert_true(module_has(m, "match.any.sync"));
  } else if (ends_with(src, "/tests/ptx/data/calls.cu")) {
    int calls = 0;
    for (uint32_t i = 0; i < m->nfuncs; i++)
      for (uint32_t k = 0; k < m->funcs[i].ninsns; k++)
        if (m->funcs[i].insns[k].op == PTX_OP_CALL) {
          assert_true(m->funcs[i].insns[k].callee >= 0);
          calls++;
        }
    assert_int_equal(calls, 3); /* axpy1, clampi, store2 */
  } else if (ends_with(src, "/tests/ptx/data/local.cu")) {
    assert_true(module_has(m, "ld.local") || module_has(m, "st.local"));
  } else if (ends_with(src, "/tests/ptx/data/texture.cu")) {
    assert_true(module_has(m, "tex.1d.v4.f32.s32"));
    assert_true(module_has(m, "tex.2d.v4.u32.f32"));
  } else if (ends_with(src, "/tests/ptx/data/inlined.cu")) {
    assert_true(module_has_inlined_loc(m));
    assert_true(module_has(m, "ld.global.nc"));
    assert_true(m->sections != NULL);
  } else if (ends_with(src, "/tests/ptx/data/forms.cu")) {
    /* rows whose shape has forms chosen by modifiers (ptx_ops.def) */
    assert_true(module_has(m, "atom.global.cas.b32"));
    assert_true(module_has(m, "bar.red.popc.u32"));
    assert_true(module_has(m, "cp.async.commit_group"));
    assert_true(module_has(m, "mbarrier.test_wait"));
    assert_true(module_has(m, "wmma.store.d"));
    assert_true(module_has(m, "tld4.g.2d"));
    assert_true(module_has(m, "sust.b.2d"));
  } else if (ends_with(src, "/tests/ptx/data/transpose.cu")) {
    assert_true(module_has(m, "bar.sync"));
    assert_true(module_has(m, "st.shared.f32"));
  }
}

static void assert_same_program(const struct ptx_module *a, const struct ptx_module *b) {
  assert_int_equal(a->nfuncs, b->nfuncs);
  for (uint32_t i = 0; i < a->nfuncs; i++) {
    const struct ptx_function *fa = &a->funcs[i], *fb = &b->funcs[i];
    assert_string_equal(fa->name, fb->name);
    assert_int_equal(fa->ninsns, fb->ninsns);
    for (uint32_t k = 0; k < fa->ninsns; k++) {
      assert_string_equal(fa->insns[k].opcode_text, fb->insns[k].opcode_text);
      assert_int_equal(fa->insns[k].nopnds, fb->insns[k].nopnds);
    }
  }
}

/* One source: returns 1 when it was checked, 0 when nvcc could not compile it (an
 * example being written by someone else: reported, not failed). */
static int round_trip(const char *nvcc, const char *ptxas, const char *src, const char *dir,
                      int must_compile, const char *flags) {
  char ptx[4200], printed[4200], cmd[16384];
  snprintf(ptx, sizeof ptx, "%s/in.ptx", dir);
  snprintf(printed, sizeof printed, "%s/printed.ptx", dir);
  snprintf(cmd, sizeof cmd, "'%s' -ptx %s -arch=sm_90 '%s' -o '%s'", nvcc, flags, src, ptx);
  if (system(cmd) != 0) {
    fprintf(stderr, "nvcc could not compile %s\n", src);
    assert_false(must_compile);
    return 0;
  }
  struct cc_err err = {0};
  struct ptx_module *m = NULL;
  int rc = ptx_parse_file(ptx, &m, &err);
  if (rc) fprintf(stderr, "%s: %s\n", src, err.msg);
  assert_int_equal(rc, CC_OK);
  assert_true(m->nfuncs > 0);
  check_features(src, flags, m);
  char *text = print_to_string(m);
  assert_non_null(text);
  assert_int_equal(write_file(printed, text), 0);
  if (ptxas) {
    /* ptxas accepts the printed text, and it means the same: the machine code of every
     * function is identical to that of nvcc's own PTX */
    char obj_in[4300], obj_out[4300];
    snprintf(obj_in, sizeof obj_in, "%s/in.cubin", dir);
    snprintf(obj_out, sizeof obj_out, "%s/printed.cubin", dir);
    assert_int_equal(run_ptxas_o(ptxas, ptx, obj_in), 0);
    rc = run_ptxas_o(ptxas, printed, obj_out);
    if (rc) fprintf(stderr, "ptxas rejected the printed PTX of %s\n", src);
    assert_int_equal(rc, 0);
    rc = cubin_same_code(obj_in, obj_out);
    if (rc) fprintf(stderr, "%s (%s): printed PTX assembles to other machine code\n", src, flags);
    assert_int_equal(rc, 0);
  }
  struct ptx_module *m2 = NULL;
  rc = ptx_parse(text, strlen(text), m->path, &m2, &err);
  if (rc) fprintf(stderr, "%s (second parse): %s\n", src, err.msg);
  assert_int_equal(rc, CC_OK);
  assert_same_program(m, m2);
  char *text2 = print_to_string(m2);
  assert_string_equal(text, text2);
  free(text2);
  free(text);
  ptx_module_free(m2);
  ptx_module_free(m);
  return 1;
}

static void test_round_trip(void **state) {
  (void)state;
  const char *found = find_tool("nvcc");
  if (!found) {
    printf("nvcc not found on PATH or in /usr/local/cuda/bin: skipping the round trip\n");
    skip();
  }
  char *nvcc = strdup(found);
  const char *pf = find_tool("ptxas");
  char *ptxas = pf ? strdup(pf) : NULL;
  if (!ptxas) printf("ptxas not found: the printed PTX is only parsed again\n");
  struct src_list data = {0}, examples = {0};
  list_cu(&data, CC_SOURCE_DIR "/tests/ptx/data", 0);
  list_cu(&examples, CC_SOURCE_DIR "/examples", 2);
  qsort(data.paths, data.n, sizeof *data.paths, cmp_str);
  qsort(examples.paths, examples.n, sizeof *examples.paths, cmp_str);
  assert_true(data.n >= 6);
  char *dir = scratch_dir();
  assert_non_null(dir);
  size_t checked = 0;
  static const char opt[] = "-lineinfo -O3", dbg[] = "-G";
  for (size_t i = 0; i < data.n; i++) {
    checked += (size_t)round_trip(nvcc, ptxas, data.paths[i], dir, 1, opt);
    /* debug builds too: .debug_* sections, $L__func_begin labels, .loc everywhere */
    round_trip(nvcc, ptxas, data.paths[i], dir, 1, dbg);
  }
  for (size_t i = 0; i < examples.n; i++)
    checked += (size_t)round_trip(nvcc, ptxas, examples.paths[i], dir, 0, opt);
  printf("round trip: %zu of %zu sources (%zu data, %zu examples)\n", checked,
         data.n + examples.n, data.n, examples.n);
  scratch_remove(dir);
  free(dir);
  list_free(&data);
  list_free(&examples);
  free(nvcc);
  free(ptxas);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_round_trip),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
