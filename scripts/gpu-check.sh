#!/usr/bin/env bash
# coalcheck gpu: build the injection library, the device patch and the test apps, then
# compare coalcheck's GPU counts with Nsight Compute and time the overhead.
# Runs on the GPU machine (through the device `run` tool): bash scripts/gpu-check.sh
# Writes under $OUT (default ./build-gpu/out): gpu-check.md (the tables), coalcheck.json,
# coalcheck.txt (stderr table), ncu.csv, overhead.txt, smoke.txt; keep the log with
# `bash scripts/gpu-check.sh 2>&1 | tee $OUT/log`. Every step has a timeout.
# SKIP_OVERHEAD=1: the counts only (no timing); SKIP_NCU=1: no Nsight Compute run.
# Needs: nvcc, gcc, ncu, compute-sanitizer, nvdisasm, python3 (all in the CUDA image).
set -u -o pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/build-gpu/out}
mkdir -p "$OUT" build-gpu
CUDA=${CUDA_HOME:-/usr/local/cuda}
SAN=$CUDA/compute-sanitizer
B=build-gpu
ITERS=${ITERS:-20}
log() { echo "== $*"; }

log "device"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader || true
nvcc --version | tail -1
DEVICE=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
export COALCHECK_GPU_DEVICE="$DEVICE"
# every figure here is compared with ncu: the exact mode (the default samples launches)
export COALCHECK_GPU_EXACT=1

log "build"
bash scripts/gpu-build.sh "$B" || exit 1
nvcc -O3 -lineinfo -arch=sm_90 -o $B/gpuapps tests/gpu/apps/gpuapps.cu || exit 1
nvcc -O3 -lineinfo -arch=sm_90 -cubin -o $B/gpuapps.cubin tests/gpu/apps/gpuapps.cu || exit 1
nvdisasm -g -c $B/gpuapps.cubin > $B/gpuapps.nvdisasm || true
APP=$B/gpuapps
PRE="LD_PRELOAD=$PWD/$B/libcoalcheck_gpu.so"

log "smoke: callbacks disabled (regex matches nothing), then one kernel, with event trace"
timeout 60 env $PRE COALCHECK_GPU_DEBUG=1 COALCHECK_KERNEL_REGEX='^nothing$' $APP copy_4 1 > $B/smoke0.txt 2>&1
echo "rc=$?"; tail -5 $B/smoke0.txt
timeout 60 env $PRE COALCHECK_GPU_DEBUG=1 COALCHECK_KERNEL_REGEX='copy_t' $APP copy_4 1 > $B/smoke1.txt 2>&1
echo "rc=$?"; tail -12 $B/smoke1.txt; cp $B/smoke1.txt "$OUT/smoke.txt"
grep -q 'copy_4' $B/smoke1.txt || { echo "smoke failed: stopping"; exit 1; }

log "coalcheck (in situ), every kernel, warm-up + 1 launch"
timeout 120 env $PRE COALCHECK_GPU_JSON="$OUT/coalcheck.json" $APP all 1 2> "$OUT/coalcheck.txt"
echo "rc=$?"; head -c 6000 "$OUT/coalcheck.txt"

log "filters: only transpose_naive, skip 1 launch, count 1"
timeout 60 env $PRE COALCHECK_GPU_JSON=$B/filter.json COALCHECK_KERNEL_REGEX='^transpose_naive' \
  COALCHECK_LAUNCH_SKIP=1 COALCHECK_LAUNCH_COUNT=1 COALCHECK_GPU_QUIET=1 $APP all 1 >/dev/null
python3 -c "import json;r=json.load(open('$B/filter.json'));print([(k['name'],k['launches']) for k in r['kernels']])"

log "ncu, same run"
M=""
for op in ld st atom red; do
  M="$M,l1tex__t_requests_pipe_lsu_mem_global_op_$op.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_$op.sum"
done
for op in ld st; do
  # local memory (LDL/STL): requests and 32-byte sectors, compared with coalcheck's
  # interleaved local layout (gpu-compare.py; expected figures in gpuapps.cu)
  M="$M,l1tex__t_requests_pipe_lsu_mem_local_op_$op.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_$op.sum"
done
for op in ld st; do
  M="$M,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_$op.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_$op.sum,smsp__sass_inst_executed_op_shared_$op.sum"
done
if [ "${SKIP_NCU:-0}" = 1 ]; then
  echo "skipped (SKIP_NCU=1)"; : > "$OUT/ncu.csv"
else
  timeout 200 ncu --csv --print-kernel-base mangled --metrics "${M#,}" $APP all 1 > "$OUT/ncu.csv" 2> $B/ncu.err
  echo "ncu rc=$?"; tail -3 $B/ncu.err
fi
log "global only (COALCHECK_GPU_SPACES=global): the global figures must not change"
timeout 120 env $PRE COALCHECK_GPU_QUIET=1 COALCHECK_GPU_SPACES=global \
  COALCHECK_GPU_JSON="$OUT/coalcheck-global.json" $APP all 1 > /dev/null
echo "rc=$?"
python3 - "$OUT/coalcheck.json" "$OUT/coalcheck-global.json" <<'PY'
import json, sys
def rows(path):
    out = {}
    for k in json.load(open(path))["kernels"]:
        for op, t in k["totals"]["global"].items():
            out[(k["name"], op)] = (t["requests"], t["sectors"])
    return out
a, b = rows(sys.argv[1]), rows(sys.argv[2])
same = sum(a[r] == b.get(r) for r in a)
print(f"global totals equal with all spaces and with global only: {same} of {len(a)} rows")
for r in a:
    if a[r] != b.get(r):
        print("  differs:", r, a[r], b.get(r))
PY

log "overhead: $ITERS iterations, native / coalcheck / memcheck"
: > "$OUT/overhead.txt"
[ "${SKIP_OVERHEAD:-0}" = 1 ] && echo "skipped (SKIP_OVERHEAD=1)"
[ "${SKIP_OVERHEAD:-0}" = 1 ] || for k in transpose_naive copy_4 gather_stride2 transpose_shared_pad copy_16; do
  for mode in native off noatomics nobits coalcheck global memcheck; do
    case $mode in
      native) cmd=(timeout 30 $APP $k $ITERS) ;;
      off) cmd=(timeout 30 env $PRE COALCHECK_GPU_QUIET=1 COALCHECK_KERNEL_REGEX='^nothing$' $APP $k $ITERS) ;;
      noatomics) cmd=(timeout 30 env $PRE COALCHECK_GPU_QUIET=1 COALCHECK_GPU_DIAG=noatomics $APP $k $ITERS) ;;
      nobits) cmd=(timeout 30 env $PRE COALCHECK_GPU_QUIET=1 COALCHECK_GPU_DIAG=nobits $APP $k $ITERS) ;;
      coalcheck) cmd=(timeout 30 env $PRE COALCHECK_GPU_QUIET=1 $APP $k $ITERS) ;;
      global) cmd=(timeout 30 env $PRE COALCHECK_GPU_QUIET=1 COALCHECK_GPU_SPACES=global $APP $k $ITERS) ;;
      memcheck) cmd=(timeout 60 compute-sanitizer --tool memcheck --print-limit 1 $APP $k $ITERS) ;;
    esac
    t0=$(date +%s.%N)
    ms=$("${cmd[@]}" 2>/dev/null | awk -v k=$k '$1==k {print $2}')
    t1=$(date +%s.%N)
    echo "$k $mode ${ms:-0} $(awk "BEGIN{print $t1 - $t0}")" | tee -a "$OUT/overhead.txt"
  done
done

log "tables"
{
  echo "# coalcheck GPU backend check"
  echo
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ); device: $DEVICE; $(nvcc --version | tail -1)"
  echo "command: bash scripts/gpu-check.sh (ITERS=$ITERS)"
  echo
  python3 scripts/gpu-compare.py "$OUT/coalcheck.json" "$OUT/ncu.csv" "$OUT/overhead.txt"
} > "$OUT/gpu-check.md" 2>&1
cat "$OUT/gpu-check.md"
