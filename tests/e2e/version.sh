#!/bin/bash
# `coalcheck --version` (src/cli/version.c, cmake/buildinfo.cmake): the project version of
# CMakeLists.txt, the git revision the build was made from ("unknown" outside git), and
# what the build includes, each as the build folder's CMakeCache.txt and outputs say: the
# GPU backend (libcoalcheck_gpu.so built), libclang, MPI (COALCHECK_MPI). Every command
# prints the same.
. "$(dirname "$0")/data/common.bash"
BUILD="$(cd "$(dirname "$COALCHECK")" && pwd)"
CACHE="$BUILD/CMakeCache.txt"
[ -f "$CACHE" ] || { echo "skip: $BUILD is not a CMake build folder"; exit 77; }

expect 0 "" "$COALCHECK" --version
cp "$TMP/out" "$TMP/version"
for c in run record report fix; do
  expect 0 "" "$COALCHECK" $c --version
  cmp -s "$TMP/out" "$TMP/version" || fail "'coalcheck $c --version' differs from --version"
done

want=$(sed -n 's/^project(coalcheck VERSION \([0-9.]*\).*/\1/p' "$COALCHECK_SRC/CMakeLists.txt")
[ -n "$want" ] || fail "no project(coalcheck VERSION ...) in CMakeLists.txt"
[ "$(sed -n 1p "$TMP/version")" = "coalcheck $want" ] ||
  fail "line 1: '$(sed -n 1p "$TMP/version")', expected 'coalcheck $want'"

# the revision: HEAD's hash when the sources are a git work tree (the build ran just
# before the tests: a commit since then would make this build stale, and the test says so)
rev=$(sed -n 's/^git revision: //p' "$TMP/version")
if top=$(git -C "$COALCHECK_SRC" rev-parse --show-toplevel 2>/dev/null) &&
   [ "$(cd "$top" && pwd -P)" = "$(cd "$COALCHECK_SRC" && pwd -P)" ]; then
  head=$(git -C "$COALCHECK_SRC" rev-parse HEAD)
  case "$rev" in
    *"${head:0:12}"*) ;;
    *) fail "git revision '$rev' is not HEAD ${head:0:12} (a build older than HEAD?)" ;;
  esac
else
  [ "$rev" = unknown ] || fail "outside git, the revision is '$rev', expected unknown"
fi
# the generator itself: a folder outside git, and a subfolder of the work tree, are
# "unknown"; the text is rewritten only when it changes
mkdir -p "$TMP/nogit"
for src in "$TMP/nogit" "$COALCHECK_SRC/src"; do
  cmake -DSRC="$src" -DOUT="$TMP/bi.c" -DGPU=1 -DLIBCLANG=0 -DMPI=1 \
    -P "$COALCHECK_SRC/cmake/buildinfo-gen.cmake" || fail "buildinfo-gen.cmake failed on $src"
  grep -qF '{"unknown", 1, 0, 1};' "$TMP/bi.c" || fail "$src: $(tail -n1 "$TMP/bi.c")"
done
touch -d '2000-01-01' "$TMP/bi.c"
cmake -DSRC="$TMP/nogit" -DOUT="$TMP/bi.c" -DGPU=1 -DLIBCLANG=0 -DMPI=1 \
  -P "$COALCHECK_SRC/cmake/buildinfo-gen.cmake"
[ "$(date -r "$TMP/bi.c" +%Y)" = 2000 ] || fail "buildinfo-gen.cmake rewrote an unchanged file"

# what the build includes
gpu="not included"
[ -f "$BUILD/src/gpu/libcoalcheck_gpu.so" ] && gpu=included
grep -q "^GPU backend: $gpu\b" "$TMP/version" ||
  fail "GPU backend: expected '$gpu': $(grep '^GPU' "$TMP/version")"
clang="not included"
grep -q '^COALCHECK_LIBCLANG:BOOL=ON' "$CACHE" && grep -q '^CC_LIBCLANG:FILEPATH=/' "$CACHE" &&
  clang=included
grep -q "^CUDA C front end (libclang): $clang\b" "$TMP/version" ||
  fail "libclang: expected '$clang': $(grep '^CUDA C' "$TMP/version")"
mpi="not included (COALCHECK_MPI=OFF)"
# COALCHECK_MPI=AUTO|ON builds with MPI where CMake found it: the binary links libmpi
ldd "$COALCHECK" | grep -q libmpi && mpi="included (COALCHECK_MPI=ON)"
grep -qxF "MPI: $mpi" "$TMP/version" || fail "MPI: expected '$mpi': $(grep '^MPI' "$TMP/version")"
[ "$(wc -l <"$TMP/version")" -eq 5 ] || fail "--version is not 5 lines: $(cat "$TMP/version")"
finish
