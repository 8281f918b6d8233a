#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds twice (plain, and with
# AddressSanitizer + UndefinedBehaviorSanitizer), and runs every test in both builds.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
. scripts/env.sh
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
exit $status
