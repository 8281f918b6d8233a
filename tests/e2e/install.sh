#!/bin/bash
# `cmake --install` gives a layout that works away from the build tree: the binary in
# PREFIX/bin, the GPU backend's files in PREFIX/lib/coalcheck (where the binary looks,
# relative to itself), the examples in PREFIX/share/coalcheck/examples, README and docs in
# PREFIX/share/doc/coalcheck, the man page and the bash and zsh completions; no installed file
# keeps a run path into the build or source tree (issue 13: the installed GPU library's
# RUNPATH named the build tree's libsanitizer-public.so: status 127 on another machine).
. "$(dirname "$0")/data/common.bash"
BUILD="$(cd "$(dirname "$COALCHECK")" && pwd)"
[ -f "$BUILD/cmake_install.cmake" ] || { echo "skip: $BUILD is not a CMake build folder"; exit 77; }
P="$TMP/prefix"
cmake --install "$BUILD" --prefix "$P" >"$TMP/install.log" 2>&1 ||
  { cat "$TMP/install.log"; fail "cmake --install failed"; finish; }
[ -x "$P/bin/coalcheck" ] || fail "no PREFIX/bin/coalcheck"
[ -x "$P/lib/coalcheck/coalcheck-gpu-launch" ] || fail "no PREFIX/lib/coalcheck/coalcheck-gpu-launch"
[ -f "$P/share/coalcheck/examples/transpose/naive.launch" ] || fail "the examples are not installed"
# the documentation, and the man page and completions the build generated from the
# option table (their contents: tests/e2e/man_completion.sh)
for f in share/doc/coalcheck/README.md share/doc/coalcheck/docs/usage.md \
         share/doc/coalcheck/docs/exit-codes.md share/doc/coalcheck/docs/ci.md \
         share/man/man1/coalcheck.1 share/bash-completion/completions/coalcheck \
         share/zsh/site-functions/_coalcheck; do
  [ -s "$P/$f" ] || fail "no PREFIX/$f"
done
cmp -s "$P/share/man/man1/coalcheck.1" "$BUILD/share/man/man1/coalcheck.1" ||
  fail "the installed man page is not the build's"
"$P/bin/coalcheck" --version >"$TMP/version" 2>&1 || fail "installed --version exited $?"
"$COALCHECK" --version | cmp -s - "$TMP/version" ||
  fail "the installed --version differs from the build's: $(cat "$TMP/version")"
GPU_LIB=
if [ -f "$BUILD/src/gpu/libcoalcheck_gpu.so" ]; then # built where nvcc and sanitizer.h are
  GPU_LIB="$P/lib/coalcheck/libcoalcheck_gpu.so"
  [ -f "$GPU_LIB" ] || fail "libcoalcheck_gpu.so was built but not installed"
  [ -f "$P/lib/coalcheck/coalcheck_gpu_patch.fatbin" ] || fail "the patch fatbin is not beside the library"
  # the installed library has the fast mode and its estimator (issue 14): it reads
  # COALCHECK_GPU_EXACT and COALCHECK_GPU_LAUNCH_PERIOD
  grep -q COALCHECK_GPU_LAUNCH_PERIOD "$GPU_LIB" && grep -q COALCHECK_GPU_EXACT "$GPU_LIB" ||
    fail "the installed libcoalcheck_gpu.so has no fast mode (an old library installed?)"
fi
# no run path into the trees this was built from
if command -v readelf >/dev/null; then
  for f in "$P/bin/coalcheck" "$P/lib/coalcheck/coalcheck-gpu-launch" $GPU_LIB; do
    rp="$(readelf -d "$f" | grep -E 'R(UN)?PATH' || true)"
    case "$rp" in
      *"$BUILD"* | *"$COALCHECK_SRC"*) fail "$f keeps a run path into the build: $rp" ;;
    esac
  done
fi

# the installed binary on an installed example, from another folder (the emulator; the
# .cu needs nvcc). Figures by hand (examples/transpose/transpose.cu): n = 1024, 32 x 128
# CTAs of 8 warps: 32,768 requests each for the load and the store, 4 + 32 sectors per
# request pair = 1,179,648 sectors, ideal 8 per pair = 262,144
mkdir -p "$TMP/elsewhere"
if [ -n "$(find_nvcc)" ]; then
  cd "$TMP/elsewhere" || exit 1
  expect 0 "" "$P/bin/coalcheck" -q --launch ../prefix/share/coalcheck/examples/transpose/naive.launch
  cd - >/dev/null || exit 1
  grep -qF "global: 65,536 requests, 1,179,648 sectors, ideal 262,144" "$TMP/out" ||
    fail "installed binary, naive transpose: $(head -n4 "$TMP/out")"
  grep -qF "transpose.cu:26" "$TMP/out" || fail "installed binary: no source line"
else
  echo "note: nvcc not found: the installed example is not run"
fi

# the installed binary finds its GPU library beside itself: with a stand-in driver (one
# device) and a toolkit holding a libsanitizer-public.so, it names the installed library
# and the toolkit's sanitizer library before it runs the application
CC=$(command -v cc || command -v gcc)
if [ -n "$GPU_LIB" ] && [ -n "$CC" ]; then
  mkdir -p "$TMP/drv" "$TMP/cuda/compute-sanitizer"
  printf 'int cuInit(unsigned f) { (void)f; return 0; }\nint cuDeviceGetCount(int *n) { *n = 1; return 0; }\n' > "$TMP/drv.c"
  echo 'int sanitizer_fake(void) { return 0; }' > "$TMP/san.c"
  "$CC" -shared -fPIC -o "$TMP/drv/libcuda.so.1" "$TMP/drv.c" &&
    "$CC" -shared -fPIC -Wl,-soname,libsanitizer-public.so \
      -o "$TMP/cuda/compute-sanitizer/libsanitizer-public.so" "$TMP/san.c" ||
    fail "cannot build the stand-ins"
  # the stand-ins have none of the driver's or the Sanitizer's API: the application then
  # runs no kernel (no report); what is checked is what coalcheck found
  (cd "$TMP/elsewhere" && env -u COALCHECK_GPU_LIB CUDA_HOME="$TMP/cuda" \
    LD_LIBRARY_PATH="$TMP/drv" "$P/bin/coalcheck" /bin/true >"$TMP/out" 2>"$TMP/err")
  # the default for executables: inline counters, the installed libcoalcheck_inline.so
  grep -qF "/bin/../lib/coalcheck/libcoalcheck_inline.so (inline counters)" "$TMP/err" ||
    fail "installed binary, inline library: $(cat "$TMP/err")"
  # the Sanitizer path: the installed library and the toolkit's libsanitizer-public.so
  (cd "$TMP/elsewhere" && env -u COALCHECK_GPU_LIB CUDA_HOME="$TMP/cuda" \
    LD_LIBRARY_PATH="$TMP/drv" "$P/bin/coalcheck" --gpu-mode sanitizer /bin/true \
    >"$TMP/out" 2>"$TMP/err")
  grep -qF "/bin/../lib/coalcheck/libcoalcheck_gpu.so, with $TMP/cuda/compute-sanitizer/libsanitizer-public.so (from \$CUDA_HOME)" "$TMP/err" ||
    fail "installed binary, GPU files: $(cat "$TMP/err")"
fi
finish
