#!/usr/bin/env bash
# The coalcheck command end to end on the GPU, in-situ and full-trace: `coalcheck ./app`
# and `coalcheck --trace T.cctrace ./app` then `coalcheck report T.cctrace`, on the naive
# transpose and the padded shared transpose of tests/gpu/apps/gpuapps.cu; the two reports'
# totals must agree. Runs on the GPU machine (device `run` tool) with the coalcheck binary
# built here carried in build-gpu-workloads/carry (and its libcjson/libzstd):
#   bash scripts/gpu-trace-e2e.sh
set -u -o pipefail
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
for k in transpose_naive transpose_shared_pad; do
  echo "== $k: in situ"
  timeout 120 $C/coalcheck -q --json $B/$k.insitu.json $B/gpuapps $k 1 > $B/$k.insitu.txt
  echo "rc=$?"
  echo "== $k: trace"
  timeout 300 $C/coalcheck -q --trace $B/$k.cctrace $B/gpuapps $k 1 > $B/$k.trace-run.txt
  echo "rc=$?"
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
