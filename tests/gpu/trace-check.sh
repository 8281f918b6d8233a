#!/usr/bin/env bash
# coalcheck gpu: the trace mode and CTA sampling on the GPU machine (through the device
# `run` tool): bash tests/gpu/trace-check.sh. Builds the library, the patch and gpuapps,
# then for transpose_naive (global) and transpose_shared_pad (shared + global):
#   smoke runs (1 CTA in 64: the device buffer; the same through a 64-record ring with no
#   device buffer, COALCHECK_GPU_TRACE_BUFFER=0, so the device must wait for the host),
#   and the overhead: native, in situ, trace (device buffer), trace with the records left
#   on the device (COALCHECK_GPU_DIAG=trace-nocopy: the device side's cost), trace through
#   the ring only, trace 1 CTA in 8, memcheck. SKIP_SMOKE=1: the overhead only. The figures of the traces are checked against the in-situ
#   ones by scripts/gpu-trace-e2e.sh (the coalcheck command, on the device).
set -u -o pipefail
# figures compared with ncu or by hand: every launch measured (the default samples)
export COALCHECK_GPU_EXACT=1
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/build-gpu/out}
mkdir -p "$OUT" build-gpu
CUDA=${CUDA_HOME:-/usr/local/cuda}
SAN=$CUDA/compute-sanitizer
B=build-gpu
ITERS=${ITERS:-5}
log() { echo "== $* ($(date +%T))"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
DEVICE=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
export COALCHECK_GPU_DEVICE="$DEVICE"
log "build"
bash scripts/gpu-build.sh "$B" || exit 1
nvcc -O3 -lineinfo -arch=sm_90 -o $B/gpuapps tests/gpu/apps/gpuapps.cu || exit 1
APP=$B/gpuapps
PRE="LD_PRELOAD=$PWD/$B/libcoalcheck_gpu.so"
CS=$(command -v compute-sanitizer || echo $SAN/compute-sanitizer)
Z=xz; command -v xz >/dev/null || Z=gzip
R=$B/res; mkdir -p $R
one() { # name kernel-regex sample trace(0/1) [ring]
  local name=$1 k=$2 smp=$3 tr=$4 ring=${5:-65536} app=$2
  case $k in transpose_shared*) app=transpose_shared_pad ;; esac
  local env=(env $PRE COALCHECK_KERNEL_REGEX="$k" COALCHECK_LAUNCH_COUNT=1
             COALCHECK_GPU_SAMPLE_CTAS=$smp COALCHECK_GPU_TRACE_RING=$ring
             COALCHECK_GPU_JSON=$R/$name.json)
  [ "$tr" = 1 ] && env+=(COALCHECK_GPU_TRACE=$B/$name.ccgpu)
  local t0=$(date +%s.%N)
  timeout ${TMO:-90} "${env[@]}" $APP $app 1 > $R/$name.out 2> $R/$name.err
  echo "$name rc=$? $(awk "BEGIN{print $(date +%s.%N) - $t0}") s; $(grep -E "trace:|error|warning" $R/$name.err | tr "\n" " ")"
  [ "$tr" = 1 ] && ls -l $B/$name.ccgpu
}
if [ "${SKIP_SMOKE:-0}" != 1 ]; then
log "smoke: trace of the naive transpose, 1 CTA in 64"
TMO=40
one smoke transpose_naive 64 1
[ -s $B/smoke.ccgpu ] || { echo "smoke failed: no trace; stopping"; tar czf "$OUT/results.tgz" -C $B res; exit 1; }
log "full ring: 1 CTA in 64, no device buffer, a 64-record ring (16384 records): the device waits"
COALCHECK_GPU_TRACE_BUFFER=0 one smoke-ring64 transpose_naive 64 1 64
ls -l $B/smoke.ccgpu $B/smoke-ring64.ccgpu
cp $B/smoke.ccgpu $B/smoke-ring64.ccgpu "$OUT/"
fi
log "overhead ($ITERS iterations; ms per iteration)"
: > $R/overhead.txt
for k in transpose_naive transpose_shared_pad; do
  re=$k; [ $k = transpose_shared_pad ] && re='transpose_shared<33>'
  for mode in native insitu trace trace-nocopy trace-ring trace-s8 memcheck; do
    case $mode in
      native) cmd=(timeout 60 $APP $k $ITERS) ;;
      insitu) cmd=(timeout 60 env $PRE COALCHECK_GPU_QUIET=1 $APP $k $ITERS) ;;
      trace) cmd=(timeout 120 env $PRE COALCHECK_GPU_QUIET=1 COALCHECK_KERNEL_REGEX="$re" COALCHECK_GPU_TRACE=$B/ov.ccgpu $APP $k $ITERS) ;;
      trace-nocopy) cmd=(timeout 120 env $PRE COALCHECK_GPU_QUIET=1 COALCHECK_KERNEL_REGEX="$re" COALCHECK_GPU_DIAG=trace-nocopy COALCHECK_GPU_TRACE=$B/ov.ccgpu $APP $k $ITERS) ;;
      trace-ring) cmd=(timeout 200 env $PRE COALCHECK_GPU_QUIET=1 COALCHECK_KERNEL_REGEX="$re" COALCHECK_GPU_TRACE_BUFFER=0 COALCHECK_GPU_TRACE=$B/ov.ccgpu $APP $k $ITERS) ;;
      trace-s8) cmd=(timeout 120 env $PRE COALCHECK_GPU_QUIET=1 COALCHECK_KERNEL_REGEX="$re" COALCHECK_GPU_SAMPLE_CTAS=8 COALCHECK_GPU_TRACE=$B/ov.ccgpu $APP $k $ITERS) ;;
      memcheck) cmd=(timeout 120 $CS --tool memcheck --print-limit 1 $APP $k $ITERS) ;;
    esac
    t0=$(date +%s.%N)
    ms=$("${cmd[@]}" 2>/dev/null | awk -v k=$k '$1==k {print $2}')
    echo "$k $mode ${ms:-0} $(awk "BEGIN{print $(date +%s.%N) - $t0}")" | tee -a $R/overhead.txt
    rm -f $B/ov.ccgpu
  done
done
tar czf "$OUT/results.tgz" -C $B res
log "done"
