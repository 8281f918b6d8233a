#!/usr/bin/env bash
# coalcheck gpu: run every bundled example launch (examples/*/*.launch) on the GPU under
# the injection library, for the per-source-line comparison with the emulator
# (scripts/gpu-compare-examples.py, bench/results/gpu-vs-emu-*.md).
#
# Two halves, because the emulator runs where coalcheck is built and the GPU elsewhere:
#   here (no GPU needed):  bash scripts/gpu-check-examples.sh prepare [DIR]
#       for each launch L (named EXAMPLE_LAUNCH): DIR/plans/L/ (the launch plan that
#       `coalcheck --backend gpu` writes: PTX + arguments + buffer hashes, via
#       COALCHECK_GPU_PLAN) and DIR/emu/L.json (the emulator's report); DIR defaults to
#       build-gpu-examples; COALCHECK defaults to build/coalcheck
#   on the GPU machine:    bash scripts/gpu-check-examples.sh device [DIR]
#       builds libcoalcheck_gpu.so, the patch and coalcheck-gpu-launch with gcc/nvcc, then
#       runs each plan twice under the library: as `coalcheck --backend gpu` does (the PTX
#       JIT-compiled by the driver with line info) and as nvcc builds an application
#       (ptxas -lineinfo -arch=sm_90, a cubin); writes DIR/res/L.{jit,cubin}.json,
#       L.sass (nvdisasm -gi of the cubin, as the library runs it) and a log, packed into $OUT/gpu-examples.tgz.
#       With DIR/carry/coalcheck present (a coalcheck binary, its libcjson), also runs
#       the command itself: `coalcheck ./gpuapps ...` and `coalcheck --backend gpu`.
# Then, here: python3 scripts/gpu-compare-examples.py DIR > bench/results/gpu-vs-emu-DATE.md
set -u -o pipefail
# figures compared with ncu or by hand: every launch measured (the default samples)
export COALCHECK_GPU_EXACT=1
cd "$(dirname "$0")/.."
MODE=${1:-}
DIR=${2:-build-gpu-examples}
log() { echo "== $*"; }

prepare() {
  local cc=${COALCHECK:-build/coalcheck} f n
  mkdir -p "$DIR/plans" "$DIR/emu"
  for f in examples/*/*.launch; do
    n=$(basename "$(dirname "$f")")_$(basename "$f" .launch)
    COALCHECK_GPU_PLAN="$DIR/plans/$n" "$cc" --backend gpu --launch "$f" -q || echo "plan failed: $f"
    "$cc" --launch "$f" -q --json "$DIR/emu/$n.json" >/dev/null || echo "emulator failed: $f"
  done
  ls "$DIR/plans" | wc -l
}

device() {
  local OUT=${OUT:-$PWD/$DIR/out} CUDA=${CUDA_HOME:-/usr/local/cuda} B=$DIR/bin d n rc
  local SAN=$CUDA/compute-sanitizer
  mkdir -p "$OUT" "$B" "$DIR/res"
  log "device"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
  nvcc --version | tail -1
  export COALCHECK_GPU_DEVICE="$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
  log "build"
  bash scripts/gpu-build.sh "$B" || return 1
  local PRE="LD_PRELOAD=$PWD/$B/libcoalcheck_gpu.so"
  log "examples"
  for d in "$DIR"/plans/*/; do
    n=$(basename "$d")
    timeout 120 env $PRE COALCHECK_GPU_JSON="$DIR/res/$n.jit.json" COALCHECK_GPU_QUIET=1 \
      $B/coalcheck-gpu-launch "$d/plan"
    rc=$?
    ptxas -lineinfo -arch=sm_90 -o "$d/kernel.cubin" "$d/kernel.ptx" &&
      nvdisasm -gi -c "$d/kernel.cubin" > "$DIR/res/$n.sass" &&
      sed 's/^module kernel.ptx$/module kernel.cubin/' "$d/plan" > "$d/plan.cubin" &&
      timeout 120 env $PRE COALCHECK_GPU_JSON="$DIR/res/$n.cubin.json" COALCHECK_GPU_QUIET=1 \
        $B/coalcheck-gpu-launch "$d/plan.cubin"
    echo "$n jit rc=$rc cubin rc=$?"
  done
  if [ -x "$DIR/carry/coalcheck" ]; then
    log "the coalcheck command on the GPU"
    nvcc -O3 -lineinfo -arch=sm_90 -o $B/gpuapps tests/gpu/apps/gpuapps.cu || return 1
    export LD_LIBRARY_PATH="$PWD/$DIR/carry${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    export COALCHECK_GPU_LIB=$PWD/$B/libcoalcheck_gpu.so COALCHECK_GPU_LAUNCH=$PWD/$B/coalcheck-gpu-launch
    local CC=$DIR/carry/coalcheck
    echo "\$ coalcheck --kernel-name transpose_naive --launch-count 1 --top 2 $B/gpuapps transpose_naive 1"
    timeout 120 $CC --kernel-name transpose_naive --launch-count 1 --top 2 $B/gpuapps transpose_naive 1
    echo "rc=$?"
    echo "\$ coalcheck --json $DIR/res/app.json $B/gpuapps nosuch   (app exits 2)"
    timeout 120 $CC --json "$DIR/res/app.json" $B/gpuapps nosuch
    echo "rc=$?"
    echo "\$ coalcheck --backend gpu --launch examples/transpose/naive.launch --top 3"
    timeout 120 $CC --backend gpu --launch examples/transpose/naive.launch --top 3
    echo "rc=$?"
    echo "\$ coalcheck --backend gpu --launch examples/histogram/shared.launch --top 4"
    timeout 120 $CC --backend gpu --launch examples/histogram/shared.launch --top 4
    echo "rc=$?"
    echo "\$ coalcheck import $DIR/res/histogram_global.jit.json --top 2"
    timeout 60 $CC import "$DIR/res/histogram_global.jit.json" --top 2
    echo "rc=$?"
  fi
  tar czf "$OUT/gpu-examples.tgz" -C "$DIR" res
}

case $MODE in
  prepare) prepare ;;
  device) mkdir -p "${OUT:-$PWD/$DIR/out}" && device 2>&1 | tee "${OUT:-$PWD/$DIR/out}/device.log" ;;
  *) echo "usage: $0 prepare|device [DIR]"; exit 2 ;;
esac
