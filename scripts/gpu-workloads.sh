#!/usr/bin/env bash
# coalcheck gpu: real workloads under the injection library — several streams with events
# (tests/gpu/apps/multistream.cu) and a CUDA graph with parallel branches replayed several
# times (tests/gpu/apps/graphs.cu). Per app: the native run (results checked by the app),
# the run under the library (event trace with COALCHECK_GPU_DEBUG, JSON report), Nsight
# Compute on the same app (l1tex__t_{requests,sectors}_pipe_lsu_mem_global_op_{ld,st}.sum,
# one row per kernel launch; graph kernel nodes profiled one by one, ncu's default), the
# per-kernel comparison (scripts/gpu-compare.py) and launches counted by both; then, with
# $DIR/carry/coalcheck present (the coalcheck binary and its libcjson), `coalcheck ./app`.
# Runs on the GPU machine (device `run` tool):  bash scripts/gpu-workloads.sh [DIR]
# Writes DIR/res/: APP.json, APP.txt, APP.ncu.csv, APP.debug.txt, APP.cli.json, and for
# graphs the diagnostic variants of how kernel nodes get their counter table
# (COALCHECK_GPU_DIAG=graph-launch-data|graph-both|graph-api-stream, src/gpu/inject.c;
# the default, per-function data, is the one equal to ncu); then
# $OUT (default DIR/out): workloads.md (tables) and workloads.tgz (DIR/res). Keep the log
# with `... 2>&1 | tee $OUT/log`. Every step has a timeout.
set -u -o pipefail
cd "$(dirname "$0")/.."
DIR=${1:-build-gpu-workloads}
OUT=${OUT:-$PWD/$DIR/out}
CUDA=${CUDA_HOME:-/usr/local/cuda}
SAN=$CUDA/compute-sanitizer
B=$DIR/bin
R=$DIR/res
mkdir -p "$OUT" "$B" "$R"
log() { echo "== $*"; }

log "device"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
nvcc --version | tail -1
DEVICE=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
export COALCHECK_GPU_DEVICE="$DEVICE"

log "build"
bash scripts/gpu-build.sh "$B" || exit 1
APPS="multistream graphs"
for a in $APPS; do
  nvcc -O3 -lineinfo -arch=sm_90 -o $B/$a tests/gpu/apps/$a.cu || exit 1
done
PRE="LD_PRELOAD=$PWD/$B/libcoalcheck_gpu.so"
M=""
for op in ld st; do
  M="$M,l1tex__t_requests_pipe_lsu_mem_global_op_$op.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_$op.sum"
done

for a in $APPS; do
  log "$a: native"
  timeout 60 $B/$a; echo "rc=$?"
  log "$a: under the library, event trace"
  timeout 45 env $PRE COALCHECK_GPU_DEBUG=1 COALCHECK_GPU_QUIET=1 $B/$a > "$R/$a.debug.txt" 2>&1
  echo "rc=$?"
  grep -E '^coalcheck-gpu: (launch|graph)|results|error|warning' "$R/$a.debug.txt" | head -60
  grep -c 'event domain' "$R/$a.debug.txt"
  grep 'event domain' "$R/$a.debug.txt" | sort | uniq -c
  grep -c 'flush' "$R/$a.debug.txt"; grep 'flush' "$R/$a.debug.txt" | sort | uniq -c
  log "$a: under the library, report"
  timeout 45 env $PRE COALCHECK_GPU_JSON="$R/$a.json" $B/$a 2> "$R/$a.txt"
  echo "rc=$?"; head -c 4000 "$R/$a.txt"
  log "$a: ncu"
  timeout 75 ncu --csv --print-kernel-base mangled --metrics "${M#,}" $B/$a > "$R/$a.ncu.csv" 2> $B/$a.ncu.err
  echo "ncu rc=$?"; tail -3 $B/$a.ncu.err
done

totals() { # JSON -> "kernel launches ld-req ld-sect st-req st-sect" per kernel
  python3 -c '
import json, sys
for k in json.load(open(sys.argv[1]))["kernels"]:
    g = k["totals"]["global"]
    print(k["name"].split("(")[0], k["launches"], *(g[d].get(f, 0) for d in ("load", "store") for f in ("requests", "sectors")))
' "$1"
}
for v in graph-launch-data graph-both graph-api-stream; do
  log "graphs: kernel nodes with $v only (COALCHECK_GPU_DIAG=$v)"
  timeout 45 env $PRE COALCHECK_GPU_DIAG=$v COALCHECK_GPU_JSON="$R/graphs.$v.json" \
    COALCHECK_GPU_QUIET=1 $B/graphs
  echo "rc=$?"; totals "$R/graphs.$v.json"
done
log "graphs: default (per-function data), totals"; totals "$R/graphs.json"
log "multistream: totals"; totals "$R/multistream.json"

if [ -x "$DIR/carry/coalcheck" ]; then
  export LD_LIBRARY_PATH="$PWD/$DIR/carry${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export COALCHECK_GPU_LIB=$PWD/$B/libcoalcheck_gpu.so
  for a in $APPS; do
    log "the coalcheck command: coalcheck --top 4 ./$a"
    timeout 45 $DIR/carry/coalcheck --top 4 --json "$R/$a.cli.json" $B/$a
    echo "rc=$?"
  done
  log "coalcheck --kernel-name axpy --launch-skip 3 --launch-count 4 ./graphs"
  timeout 45 $DIR/carry/coalcheck --kernel-name axpy --launch-skip 3 --launch-count 4 \
    --json "$R/graphs.filter.json" $B/graphs
  echo "rc=$?"
fi

log "tables"
{
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ); device: $DEVICE; $(nvcc --version | tail -1)"
  echo "command: bash scripts/gpu-workloads.sh"
  for a in $APPS; do
    echo; echo "## $a"; echo
    python3 scripts/gpu-compare.py "$R/$a.json" "$R/$a.ncu.csv"
    python3 - "$R/$a.json" "$R/$a.ncu.csv" <<'PY'
import csv, json, sys
from collections import defaultdict
rep = json.load(open(sys.argv[1]))
ids = defaultdict(set)
with open(sys.argv[2], newline="") as f:
    for r in csv.DictReader([l for l in f if l.startswith('"')]):
        ids[r["Kernel Name"]].add(r["ID"])
print("| kernel | launches (coalcheck) | launches (ncu) | grid | block |")
print("| --- | ---: | ---: | --- | --- |")
for k in rep["kernels"]:
    print(f"| {k['name']} | {k['launches']} | {len(ids.get(k['mangled'], ()))} | {k['grid']} | {k['block']} |")
PY
  done
} > "$OUT/workloads.md" 2>&1
cat "$OUT/workloads.md"
cp "$R"/*.debug.txt "$OUT/" 2>/dev/null
tar czf "$OUT/workloads.tgz" -C "$DIR" res
