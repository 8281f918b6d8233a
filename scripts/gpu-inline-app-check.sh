#!/usr/bin/env bash
# coalcheck gpu, issue 14, on the GPU machine: application mode with inline counters
# (libcoalcheck_inline.so) on the apps of bench/gpuapps/, a first look.
#   bash scripts/gpu-inline-app-check.sh CARRY OUT
# CARRY holds libcoalcheck_inline.so built on another machine (the GPU machine has no
# -dev packages) and the libraries it needs that the machine may lack (libcjson.so.1,
# libzstd.so.1: put on LD_LIBRARY_PATH). Per app: native, inline exact
# (COALCHECK_GPU_EXACT=1) and inline fast (the default: 1 CTA in 8), the app's own kernel
# time and check value (an instrumented run must print the native check), the report's
# kernels and instructions and its notes. One app is also built for nvcc's default
# target (compute_75 PTX beside an sm_75 cubin) and run exact with COALCHECK_GPU_DEBUG=1:
# the hooks seen, the module instrumented and loaded. APPS="a b" a subset.
set -u -o pipefail
cd "$(dirname "$0")/.."
C=$(cd "${1:?usage: CARRY OUT}" && pwd)
OUT=$(mkdir -p "${2:?usage: CARRY OUT}" && cd "$2" && pwd)
export LD_LIBRARY_PATH=$C${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export COALCHECK_GPU_DEVICE=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
LIB=$C/libcoalcheck_inline.so
APPS=${APPS:-"gemv_rows gemv_cols transpose_naive transpose_shared stencil2d covariance stride_gather gramschmidt lu adi fdtd2d jacobi1d"}
LIMIT=${LIMIT:-60}
for a in $APPS; do
  nvcc -O3 -lineinfo -arch=sm_90 -o "$OUT/$a" "bench/gpuapps/$a.cu" &
done
nvcc -O3 -lineinfo -o "$OUT/transpose_naive_default" bench/gpuapps/transpose_naive.cu &
wait
run() { # TAG APP ENV...
  local tag=$1 app=$2; shift 2
  local o="$OUT/$app.$tag"
  if [ "$tag" = native ]; then
    timeout "$LIMIT" "$OUT/$app" > "$o.out" 2> "$o.err"
  else
    timeout "$LIMIT" env LD_PRELOAD="$LIB" COALCHECK_GPU_JSON="$o.json" "$@" "$OUT/$app" \
      > "$o.out" 2> "$o.err"
  fi
  local rc=$?
  echo "$app $tag rc=$rc $(grep -o 'kernel_ms=[0-9.]* launches=[0-9]* check=[^ ]*' "$o.out")" \
       "$(python3 -c 'import json,sys
try:
  d=json.load(open(sys.argv[1])); k=d["kernels"]
  print("kernels=%d insns=%d notes=%d" % (len(k), sum(len(x["instructions"]) for x in k), len(d.get("notes",[]))))
except Exception as e: print("no report", type(e).__name__)' "$o.json" 2>/dev/null)"
  grep -v '^coalcheck-inline: hook\|^coalcheck-inline: kernel' "$o.err" | head -5
}
run native transpose_naive_default
run exact transpose_naive_default COALCHECK_GPU_EXACT=1 COALCHECK_GPU_DEBUG=1
grep '^coalcheck-inline: hook' "$OUT/transpose_naive_default.exact.err" | sort | uniq -c
for a in $APPS; do
  run native "$a"
  run exact "$a" COALCHECK_GPU_EXACT=1
  run fast "$a"
done
cd "$OUT" && tar czf "$OUT/inline-app.tgz" --exclude='*.tgz' $(ls | grep -v '\.tgz$' | grep '\.')
