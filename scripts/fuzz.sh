#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz (clang, CMake -DCOALCHECK_FUZZ=ON, into
# build-fuzz/) and runs each for a set time or number of runs on a scratch copy of its
# seed corpus, then prints one line per target: executions, exec/s, new corpus units, and
# whether it found something (the reproducer is kept in build-fuzz/artifacts/).
#
#   scripts/fuzz.sh [-t SECONDS | -r RUNS] [-j JOBS] [TARGET...]
#     -t SECONDS  time per target (default 60)
#     -r RUNS     executions per target instead of a time (e.g. -r 10000000)
#     -j JOBS     libFuzzer workers per target (-fork=JOBS; default 1: one process)
#     TARGET      fuzz_ptx fuzz_launch_file fuzz_arg fuzz_trace fuzz_gpu_json (default all)
#   FUZZ_FLAGS    more libFuzzer flags for every target (e.g. "-max_len=65536")
#
# Exit 0 when no target found anything, 1 otherwise, 2 on a usage or build error.
set -euo pipefail
cd "$(dirname "$0")/.."
all=(fuzz_ptx fuzz_launch_file fuzz_arg fuzz_trace fuzz_gpu_json)
seconds=60 runs= jobs=1
while getopts "t:r:j:h" opt; do
  case $opt in
    t) seconds=$OPTARG ;;
    r) runs=$OPTARG ;;
    j) jobs=$OPTARG ;;
    *) sed -n '2,14p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
targets=("${@:-${all[@]}}")
for t in "${targets[@]}"; do
  [[ " ${all[*]} " == *" $t "* ]] || { echo "fuzz: unknown target '$t' (${all[*]})" >&2; exit 2; }
done
command -v clang >/dev/null || { echo "fuzz: clang not found (apt-get install clang libclang-rt-14-dev)" >&2; exit 2; }

dir=build-fuzz
cmake -S . -B "$dir" -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCOALCHECK_FUZZ=ON -DCOALCHECK_WERROR=OFF >/dev/null
cmake --build "$dir" -j"$(nproc)" --target "${targets[@]}" >/dev/null

# the targets' scratch files (fuzz.h) in memory, removed even after a crash or timeout
scratch=$(mktemp -d "$([ -w /dev/shm ] && echo /dev/shm || echo "${TMPDIR:-/tmp}")/cc-fuzz-run-XXXXXX")
trap 'rm -rf "$scratch"' EXIT
export TMPDIR=$scratch
limit=(-max_total_time="$seconds")
[ -n "$runs" ] && limit=(-runs="$runs")
found=0
printf '%-18s %14s %10s %8s  %s\n' target execs exec/s units result
for t in "${targets[@]}"; do
  work="$dir/corpus/$t" art="$dir/artifacts/$t"
  mkdir -p "$work" "$art"
  log="$dir/$t.log"
  set +e
  # shellcheck disable=SC2086
  "$dir/tests/fuzz/$t" "${limit[@]}" -rss_limit_mb=2048 -timeout=20 -print_final_stats=1 \
    -artifact_prefix="$art/" ${FUZZ_FLAGS:-} $([ "$jobs" -gt 1 ] && echo "-fork=$jobs") \
    "$work" "tests/fuzz/corpus/$t" >"$log" 2>&1
  rc=$?
  set -e
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  if [ "$jobs" -gt 1 ]; then # fork mode: the parent's last status line
    line=$(grep -E '#[0-9]+: cov' "$log" | tail -1 || true)
    execs=$(echo "$line" | sed -n 's/^#\([0-9]*\):.*/\1/p')
    speed=$(echo "$line" | sed -n 's/.*exec\/s:\{0,1\} \([0-9]*\).*/\1/p')
  fi
  units=$(find "$work" -type f | wc -l)
  if [ $rc -eq 0 ]; then
    result=ok
  else
    found=1
    result="FOUND (exit $rc): $(ls -t "$art" 2>/dev/null | head -1) ; see $log"
  fi
  printf '%-18s %14s %10s %8s  %s\n' "$t" "${execs:-?}" "${speed:-?}" "$units" "$result"
done
exit $found
