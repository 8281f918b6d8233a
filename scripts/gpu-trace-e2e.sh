#!/usr/bin/env bash
# The coalcheck command end to end on the GPU, in-situ and full-trace: `coalcheck ./app`
# and `coalcheck --trace T.cctrace ./app` then `coalcheck report T.cctrace`, on the naive
# transpose and the padded shared transpose of tests/gpu/apps/gpuapps.cu; the two reports'
# totals must agree. Runs on the GPU machine (device `run` tool) with the coalcheck binary
# built here carried in build-gpu-workloads/carry (and its libcjson/libzstd):
#   bash scripts/gpu-trace-e2e.sh
# Each trace is made three ways (device buffer, device buffer too small, ring only: see
# the variants below); every one must give the in-situ figures.
set -u -o pipefail
# figures compared with ncu or by hand: every launch measured (the default samples)
export COALCHECK_GPU_EXACT=1
cd "$(dirname "$0")/.."
CUDA=${CUDA_HOME:-/usr/local/cuda}
SAN=$CUDA/compute-sanitizer
B=build-gpu-e2e
C=build-gpu-workloads/carry
mkdir -p $B
bash scripts/gpu-build.sh "$B" || exit 1
nvcc -O3 -lineinfo -arch=sm_90 -o $B/gpuapps tests/gpu/apps/gpuapps.cu || exit 1
export LD_LIBRARY_PATH="$PWD/$C${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export COALCHECK_GPU_LIB=$PWD/$B/libcoalcheck_gpu.so
status=0
# variants: KERNEL:TRACE_BUFFER_MIB — the default device buffer (512 MiB), a 16 MiB one that
# the naive transpose's 32 MiB of records overflow (the rest goes through the ring), and
# none (every record through the ring)
for v in transpose_naive:512 transpose_naive:16 transpose_naive:0 transpose_shared_pad:512 \
         transpose_shared_pad:0; do
  k=${v%%:*} mib=${v#*:}
  if [ ! -e $B/$k.insitu.json ]; then
    echo "== $k: in situ"
    timeout 120 $C/coalcheck -q --json $B/$k.insitu.json $B/gpuapps $k 1 > $B/$k.insitu.txt
    echo "rc=$?"
  fi
  echo "== $k: trace, device buffer $mib MiB"
  t0=$(date +%s.%N)
  timeout 300 env COALCHECK_GPU_TRACE_BUFFER=$mib $C/coalcheck --trace $B/$k.cctrace \
    $B/gpuapps $k 1 > $B/$k.trace-run.txt 2> $B/$k.trace-run.err
  echo "rc=$? $(awk "BEGIN{print $(date +%s.%N) - $t0}") s"; grep -E "trace|error|warning" $B/$k.trace-run.err
  ls -l $B/$k.cctrace
  timeout 120 $C/coalcheck report $B/$k.cctrace --json $B/$k.trace.json > $B/$k.trace.txt
  echo "report rc=$?"
  python3 - "$B/$k.insitu.json" "$B/$k.trace.json" <<'PY' || status=1
import json, sys
def totals(path):
    out = {}
    for k in json.load(open(path))["kernels"]:
        t = k["totals"]
        row = out.setdefault(k["name"] + " " + k.get("mangled_name", ""), [0, 0, 0])
        row[0] += t["requests"]; row[1] += t["sectors"]; row[2] += t["wavefronts"]
    return out
a, b = totals(sys.argv[1]), totals(sys.argv[2])
ok = True
for name in sorted(set(a) | set(b)):
    same = a.get(name) == b.get(name)
    ok &= same
    print(f"{name}: in situ requests/sectors/wavefronts {a.get(name)}; trace {b.get(name)}: "
          f"{'match' if same else 'DIFFER'}")
sys.exit(0 if ok else 1)
PY
done
exit $status
