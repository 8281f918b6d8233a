#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds twice (plain, and with
# AddressSanitizer + UndefinedBehaviorSanitizer), and runs every test in both builds;
# then builds, installs (dpkg -i), runs and removes the Debian package
# (scripts/test-deb.sh); then compiles the other build types and compilers, warnings as errors
# (scripts/build-matrix.sh: gcc and clang x Debug, Release, RelWithDebInfo).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
. scripts/env.sh
# the GPU backend's injection library compiles against the Compute Sanitizer API headers;
# where the toolkit lacks them (CI), they come from PyPI; without them that part is skipped
scripts/fetch-sanitizer-headers.sh >/dev/null 2>&1 ||
  echo "test: warning: Sanitizer API headers not fetched; the GPU library build is skipped" >&2
jobs=$(nproc)
status=0
for variant in build build-asan; do
  extra=()
  [ "$variant" = build-asan ] && extra=(-DCOALCHECK_SANITIZE=ON)
  echo "== $variant: building" >&2
  scripts/build.sh "$variant" "${extra[@]}"
  echo "== $variant: testing" >&2
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir "$variant" --output-on-failure -j"$jobs" || status=1
done
# the Debian package of the plain build, installed with dpkg -i, run, removed
# (scripts/test-deb.sh; skipped where dpkg-deb is missing)
echo "== build: the Debian package" >&2
rc=0
scripts/test-deb.sh build || rc=$?
[ "$rc" -eq 0 ] || [ "$rc" -eq 77 ] || status=1
scripts/build-matrix.sh || status=1
exit $status
