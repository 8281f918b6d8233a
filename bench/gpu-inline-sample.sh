#!/usr/bin/env bash
# Issue 14, kernel mode: what CTA sampling (--gpu-mode inline --sample-ctas N) saves in
# kernel time against counting every CTA, per launch file. Run on the GPU machine:
#
#   bash bench/gpu-inline-sample.sh BIN OUT N LAUNCH...
#
# BIN holds coalcheck and coalcheck-gpu-launch (a Release build and, in BIN/lib, the
# shared libraries it needs); each .cu is compiled to PTX once (nvcc -ptx -lineinfo
# -arch=sm_90, as coalcheck does). Kernel times: the launcher's `time RUNS` (3 warm-up
# launches, the median of RUNS, CUDA events) of the plain PTX (native), the instrumented
# PTX counting every CTA (inline) and counting 1 CTA in N (sampled). Prints one row a
# launch: name, the three medians in ms and the ratios to native.
set -u
BIN=$(cd "$1" && pwd)
OUT=$(mkdir -p "$2" && cd "$2" && pwd)
N=$3
shift 3
RUNS=${RUNS:-10}
LIMIT=${LIMIT:-60}
[ -d "$BIN/lib" ] && export LD_LIBRARY_PATH="$BIN/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
ms() { awk 'NR == 1 {print $1}' "$1" 2>/dev/null; }  # time.txt: the median first
echo "| launch | native ms | inline ms | sampled 1/$N ms | inline x | sampled x |"
echo "| --- | ---: | ---: | ---: | ---: | ---: |"
. "$(dirname "$0")/gpu-inline-prep.sh"
for launch in "$@"; do
  inline_prep "$launch" "$OUT" gpuinlsample || { echo "| $name | nvcc failed |"; continue; }
  for mode in native inline sampled; do
    extra=()
    [ "$mode" = inline ] && extra=(--gpu-mode inline)
    [ "$mode" = sampled ] && extra=(--gpu-mode inline --sample-ctas "$N")
    COALCHECK_GPU_PLAN="$w/$mode" timeout "$LIMIT" "$BIN/coalcheck" -q --backend gpu \
      "${extra[@]}" --launch "$ll" >/dev/null 2>>"$w/err"
    echo "time $RUNS time.txt" >>"$w/$mode/plan"
    timeout "$LIMIT" "$BIN/coalcheck-gpu-launch" "$w/$mode/plan" >>"$w/log" 2>&1
  done
  rm -f "$ll" "$w"/*/counters.bin "$w"/*/*.bin
  n=$(ms "$w/native/time.txt") i=$(ms "$w/inline/time.txt") s=$(ms "$w/sampled/time.txt")
  echo "$name ${n:--} ${i:--} ${s:--}" | awk '{
    ri = ($2 + 0 > 0 && $3 != "-") ? sprintf("%.2fx", $3 / $2) : "-"
    rs = ($2 + 0 > 0 && $4 != "-") ? sprintf("%.2fx", $4 / $2) : "-"
    printf "| %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, ri, rs }'
done
