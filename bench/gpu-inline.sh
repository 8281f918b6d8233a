#!/usr/bin/env bash
# Issue 14, kernel mode: native kernel time vs the inline counters (--gpu-mode inline,
# src/ptx/instrument.c) vs the Compute Sanitizer path (libcoalcheck_gpu.so, --exact), and
# the counts of both, per launch file. Run on the GPU machine:
#
#   bash bench/gpu-inline.sh BIN OUT LAUNCH...
#
# BIN holds coalcheck, coalcheck-gpu-launch, libcoalcheck_gpu.so and its patch (a Release
# build); OUT gets one folder per launch (plans, times, JSON reports) and table.md
# (bench/gpu-inline.py). Each .cu is compiled to PTX once (nvcc -ptx -lineinfo -arch=sm_90,
# as coalcheck does), and all runs use that PTX. Kernel times: the launcher's `time 20`
# (3 warm-up launches, the median of 20 timed with CUDA events): native (the plain PTX),
# inline (the instrumented PTX, no tool), sanitizer (the plain PTX under the library with
# COALCHECK_GPU_EXACT=1: every launch patched). Wall: `coalcheck ... --json` whole, as a
# user runs it (inline: instrument, JIT, launch, report; sanitizer: load, patch, launch,
# nvdisasm, report).
set -u
BIN=$(cd "$1" && pwd)
OUT=$(mkdir -p "$2" && cd "$2" && pwd)
shift 2
RUNS=${RUNS:-20}
LIMIT=${LIMIT:-60}
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
SAN=$(dirname "$(readlink -f "$NVCC")")/../compute-sanitizer
now() { date +%s.%N; }
. "$(dirname "$0")/gpu-inline-prep.sh"
for launch in "$@"; do
  inline_prep "$launch" "$OUT" gpuinline || { echo "$name: nvcc failed"; continue; }
  for mode in native inline; do
    extra=()
    [ "$mode" = inline ] && extra=(--gpu-mode inline)
    COALCHECK_GPU_PLAN="$w/$mode" "$BIN/coalcheck" -q --backend gpu "${extra[@]}" --launch "$ll" 2>>"$w/err"
    echo "time $RUNS time.txt" >>"$w/$mode/plan"
  done
  cp -r "$w/native" "$w/sanitizer"
  timeout "$LIMIT" "$BIN/coalcheck-gpu-launch" "$w/native/plan" >>"$w/log" 2>&1
  timeout "$LIMIT" "$BIN/coalcheck-gpu-launch" "$w/inline/plan" >>"$w/log" 2>&1
  LD_PRELOAD="$BIN/libcoalcheck_gpu.so" LD_LIBRARY_PATH="$SAN${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    COALCHECK_GPU_EXACT=1 COALCHECK_GPU_QUIET=1 COALCHECK_GPU_JSON="$w/sanitizer/raw.json" \
    timeout "$LIMIT" "$BIN/coalcheck-gpu-launch" "$w/sanitizer/plan" >>"$w/log" 2>&1
  t0=$(now)
  timeout "$LIMIT" "$BIN/coalcheck" -q --backend gpu --gpu-mode inline --launch "$ll" \
    --json "$w/inline.json" >"$w/inline.txt" 2>>"$w/err"
  t1=$(now)
  timeout "$LIMIT" "$BIN/coalcheck" -q --backend gpu --launch "$ll" --json "$w/sanitizer.json" \
    >"$w/sanitizer.txt" 2>>"$w/err"
  t2=$(now)
  echo "$t0 $t1 $t2" | awk '{printf "%.3f %.3f\n", $2 - $1, $3 - $2}' >"$w/wall.txt"
  rm -f "$ll" "$w"/*/counters.bin
  echo "$name done"
done
python3 "$(dirname "$0")/gpu-inline.py" "$OUT" >"$OUT/table.md"
cat "$OUT/table.md"
