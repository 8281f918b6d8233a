#!/usr/bin/env bash
# coalcheck bench: generic, local and .func accesses counted by the inline PTX counters
# (issue 14's leftovers) against the Sanitizer path and Nsight Compute, on a GPU.
#   bash bench/gpu-inline-generic.sh CARRY OUT
# CARRY holds libcoalcheck_inline.so, libcoalcheck_gpu.so and coalcheck_gpu_patch.fatbin
# built elsewhere (Release) with libcjson.so.1 and libzstd.so.1, and optionally main/
# with the libcoalcheck_inline.so of the revision before (its "before" column). The app is
# tests/gpu/apps/generic.cu (5 kernels, one launch each). Runs: native; inline exact
# (COALCHECK_GPU_EXACT=1); inline exact of main/ (when present); the Sanitizer path exact;
# ncu --metrics (the l1tex requests and sectors of global and local loads and stores,
# the shared wavefronts). Writes OUT/gpu-inline-generic.md (bench/gpu-inline-generic.py).
set -u -o pipefail
cd "$(dirname "$0")/.."
C=$(cd "${1:?usage: CARRY OUT}" && pwd)
OUT=$(mkdir -p "${2:?usage: CARRY OUT}" && cd "$2" && pwd)
DEVICE=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
export COALCHECK_GPU_DEVICE=$DEVICE COALCHECK_GPU_QUIET=1
SAN=$(dirname "$(command -v nvcc)")/../compute-sanitizer
nvcc -O3 -lineinfo -arch=sm_90 -o "$OUT/generic" tests/gpu/apps/generic.cu || exit 1
run() { # TAG ENV... -> OUT/TAG.{out,err}
  local tag=$1; shift
  env "$@" timeout 120 "$OUT/generic" > "$OUT/$tag.out" 2> "$OUT/$tag.err"
  echo "$tag rc=$? $(cat "$OUT/$tag.out")"; grep -v '^==' "$OUT/$tag.err" | head -5
}
run native
run inline LD_LIBRARY_PATH="$C" LD_PRELOAD="$C/libcoalcheck_inline.so" COALCHECK_GPU_EXACT=1 \
  COALCHECK_GPU_JSON="$OUT/inline.json"
[ -f "$C/main/libcoalcheck_inline.so" ] &&
  run inline-main LD_LIBRARY_PATH="$C" LD_PRELOAD="$C/main/libcoalcheck_inline.so" \
    COALCHECK_GPU_EXACT=1 COALCHECK_GPU_JSON="$OUT/inline-main.json"
run sanitizer LD_LIBRARY_PATH="$C:$SAN" LD_PRELOAD="$C/libcoalcheck_gpu.so" \
  COALCHECK_GPU_PATCH="$C/coalcheck_gpu_patch.fatbin" COALCHECK_GPU_EXACT=1 \
  COALCHECK_GPU_JSON="$OUT/sanitizer.json"
M=l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
M=$M,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
M=$M,l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum
M=$M,l1tex__t_requests_pipe_lsu_mem_local_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum
M=$M,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
timeout 150 ncu --csv --print-kernel-base mangled --metrics "$M" "$OUT/generic" \
  > "$OUT/ncu.csv" 2> "$OUT/ncu.err"
echo "ncu rc=$?"
python3 bench/gpu-inline-generic.py "$OUT" "$DEVICE" > "$OUT/gpu-inline-generic.md"
cat "$OUT/gpu-inline-generic.md"
