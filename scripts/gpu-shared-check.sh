#!/usr/bin/env bash
# Shared-memory bank conflicts per SASS instruction: coalcheck's GPU backend (in situ)
# against Nsight Compute's SourceCounters (per-instruction shared wavefronts and ideal
# wavefronts), for the tiled transposes (padded and not), strided and wide shared
# accesses of tests/gpu/apps/gpuapps.cu. The kernel-wide l1tex__data_* counters of
# scripts/gpu-check.sh came out 0-9% above the model; this check asks whether the
# per-instruction figures agree exactly.
# Runs on the GPU machine (device `run` tool): bash scripts/gpu-shared-check.sh
# Writes $OUT/gpu-shared.tar.gz: coalcheck-<kernel>.json and ncu-source-<kernel>.csv.
set -u -o pipefail
# figures compared with ncu or by hand: every launch measured (the default samples)
export COALCHECK_GPU_EXACT=1
cd "$(dirname "$0")/.."
FINAL=${OUT:-$PWD/build-gpu}
OUT=$PWD/build-gpu/shared-out
mkdir -p "$OUT" "$FINAL"
CUDA=${CUDA_HOME:-/usr/local/cuda}
SAN=$CUDA/compute-sanitizer
B=build-gpu
log() { echo "== $*"; }

log "device"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
export COALCHECK_GPU_DEVICE=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)

log "build"
bash scripts/gpu-build.sh "$B" || exit 1
nvcc -O3 -lineinfo -arch=sm_90 -o $B/gpuapps tests/gpu/apps/gpuapps.cu || exit 1
APP=$B/gpuapps
KERNELS="transpose_shared_nopad transpose_shared_pad shared_stride2 shared_stride32 shared_wide8 shared_wide16 shared_only"

if [ -z "${ONLY_TOTALS:-}" ]; then  # ONLY_TOTALS=1: just the ncu totals below
log "coalcheck in situ (warm-up + 1 launch each)"
: > $B/cc.log
for k in $KERNELS; do
  timeout 120 env LD_PRELOAD=$PWD/$B/libcoalcheck_gpu.so COALCHECK_GPU_QUIET=1 \
    COALCHECK_GPU_JSON="$OUT/coalcheck-$k.json" $APP $k 1 >> $B/cc.log 2>&1
  echo "$k rc=$?"
done

log "ncu: instruction-level shared-memory metrics this version knows"
timeout 60 ncu --query-metrics-mode all --query-metrics --chip gh100 2>/dev/null |
  grep -iE 'sass.*shared|shared.*wavefront|wavefronts.*shared' > "$OUT/ncu-shared-metrics.txt"
wc -l "$OUT/ncu-shared-metrics.txt"
log "ncu SourceCounters, one launch of each kernel (the warm-up launch)"
for k in $KERNELS; do
  # the app's own kernels (not its init_bytes), first launch
  timeout 200 ncu --section SourceCounters --import-source yes -k regex:'^(transpose|shared)' \
    --launch-count 1 -f -o $B/rep-$k $APP $k 1 > $B/ncu-$k.log 2>&1
  echo "$k ncu rc=$?"
  timeout 60 ncu -i $B/rep-$k.ncu-rep --page source --csv --print-source sass \
    > "$OUT/ncu-source-$k.csv" 2>> $B/ncu-$k.log
  python3 -c "import csv,sys;r=list(csv.reader(open(sys.argv[1])));h=r[1];i=[h.index(c) for c in ('Address','Source','Instructions Executed','L1 Conflicts Shared N-Way')];[print([x[j] for j in i]) for x in r[2:] if 'LDS' in x[1] or 'STS' in x[1]]" "$OUT/ncu-source-$k.csv"
done
fi
log "ncu kernel totals: hardware wavefronts/conflicts and the instruction-level (SASS-patched) wavefronts"
M=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
M=$M,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
M=$M,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum
M=$M,smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum
: > "$OUT/ncu-totals.csv"
for k in $KERNELS; do
  timeout 120 ncu --csv -k regex:'^(transpose|shared)' --launch-count 1 --metrics $M $APP $k 1 \
    2>> $B/ncu-totals.log | grep -v '^==' >> "$OUT/ncu-totals.csv"
done
python3 - "$OUT/ncu-totals.csv" <<'PY'
import csv, sys
for row in csv.reader(open(sys.argv[1])):
    if len(row) > 4 and row[0] != "ID":
        print(row[4][:40], row[-3], row[-1])
PY
cp $B/*.log "$OUT"/ 2>/dev/null
tar czf "$FINAL/gpu-shared.tar.gz" -C "$OUT" .
log "done"; ls -la "$OUT"
