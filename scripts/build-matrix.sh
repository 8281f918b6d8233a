#!/usr/bin/env bash
# Compiles coalcheck (the module libraries, the binary and the GPU backend's launcher and
# library where they are built; not the tests) in build types and compilers that
# scripts/test.sh does not already build, warnings as errors: an optimiser that sees
# more (gcc -O2/-O3: -Wmaybe-uninitialized) or another compiler fails here, not in a
# user's build. Each combination gets its own folder build-matrix/CC-TYPE (kept between
# runs: later runs only recompile what changed).
#   scripts/build-matrix.sh                  the combinations test.sh leaves out
#   scripts/build-matrix.sh CC:TYPE ...      those, e.g. clang:Release gcc:Debug
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
# test.sh builds and tests gcc RelWithDebInfo (build/, and build-asan/ with ASan+UBSan);
# these are the other five of {gcc, clang} x {Debug, Release, RelWithDebInfo}
combos=("$@")
[ ${#combos[@]} -gt 0 ] ||
  combos=(gcc:Debug gcc:Release clang:Debug clang:Release clang:RelWithDebInfo)
status=0
mkdir -p build-matrix
for combo in "${combos[@]}"; do
  cc=${combo%%:*} type=${combo#*:}
  dir=build-matrix/$cc-$type
  echo "== build-matrix: $cc $type" >&2
  if ! cmake -S . -B "$dir" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE="$type" \
       -DCOALCHECK_WERROR=ON >"$dir.log" 2>&1; then
    cat "$dir.log" >&2
    status=1
    continue
  fi
  targets=(coalcheck coalcheck-gpu-launch)
  # the injection library only where src/gpu/CMakeLists.txt found nvcc and sanitizer.h
  help=$(cmake --build "$dir" --target help)
  grep -Eq '(^|[ .])coalcheck_gpu(:|$)' <<<"$help" && targets+=(coalcheck_gpu)
  cmake --build "$dir" -j"$(nproc)" --target "${targets[@]}" >"$dir.log" 2>&1 ||
    { grep -E 'error|warning' "$dir.log" >&2 || cat "$dir.log" >&2; status=1; }
done
exit $status
