#!/usr/bin/env bash
# coalcheck gpu, issue 14, on the GPU machine: the fast (default) mode and the exact
# mode's deferred read-back against what they must equal, then the overhead table.
#   bash scripts/gpu-fast-check.sh      (OUT: where results go, default build-gpu/fast)
# 1. exact mode, deferred read-back vs per-launch read-back (COALCHECK_GPU_DIAG=nodefer):
#    every figure of every instruction equal (tests/gpu/apps/gpuapps.cu all 3: 4 launches
#    per kernel; multistream.cu: 3 streams; threads.cu: 3 host threads);
# 2. fast mode vs exact on the same runs: the same instructions, the same verdicts; the
#    largest relative error of requests and sectors and the stated bound;
# 3. bench/gpu-overhead.sh (BENCH=0 skips it).
set -u -o pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/build-gpu/fast}
B=build-gpu
mkdir -p "$OUT" $B
export COALCHECK_GPU_DEVICE=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
bash scripts/gpu-build.sh $B || exit 1
PRE=LD_PRELOAD=$PWD/$B/libcoalcheck_gpu.so
for app in gpuapps multistream threads; do
  nvcc -O3 -lineinfo -arch=sm_90 -o $B/$app tests/gpu/apps/$app.cu || exit 1
done
run() { # NAME MODE-ENV... -- APP ARGS
  local name=$1; shift
  local envs=(); while [ "$1" != -- ]; do envs+=("$1"); shift; done; shift
  timeout ${RUN_LIMIT:-60} env $PRE COALCHECK_GPU_QUIET=1 COALCHECK_GPU_PROFILE=1 \
    COALCHECK_GPU_JSON="$OUT/$name.json" "${envs[@]}" "$@" > "$OUT/$name.out" 2> "$OUT/$name.err"
  echo "$name rc=$? $(grep coalcheck-gpu-profile "$OUT/$name.err")"
}
for app in "gpuapps all 3" "multistream 3" "threads"; do
  set -- $app; n=$1
  run $n-nodefer COALCHECK_GPU_EXACT=1 COALCHECK_GPU_DIAG=nodefer -- $B/$@
  run $n-exact COALCHECK_GPU_EXACT=1 -- $B/$@
  run $n-fast COALCHECK_GPU_DEBUG=1 -- $B/$@
  grep -v '^coalcheck-gpu: event' "$OUT/$n-fast.err" | tail -4
done
python3 - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]
def load(n):
    try:
        return {(k["mangled"], i["sass_offset"]): i for k in json.load(open(f"{out}/{n}.json"))["kernels"]
                for i in k["instructions"]}
    except (OSError, ValueError) as e:
        print(f"{n}: no report ({e})"); return None
keys = ("requests", "lanes", "sectors", "ideal_sectors", "wavefronts", "ideal_wavefronts",
        "bytes_requested", "stride", "verdict")
for app in ("gpuapps", "multistream", "threads"):
    nd, ex, fa = load(app + "-nodefer"), load(app + "-exact"), load(app + "-fast")
    if nd is None or ex is None:
        continue
    diff = [k for k in nd if k not in ex or any(nd[k].get(f) != ex[k].get(f) for f in keys)]
    diff += [k for k in ex if k not in nd]
    print(f"{app}: exact deferred vs per-launch read-back: {len(nd) - len(diff)} of {len(nd)} "
          f"instructions equal" + (f"; differ: {diff[:5]}" if diff else ""))
    if fa is None:
        continue
    worst, vdiff, missing = 0.0, 0, 0
    for k, i in ex.items():
        f = fa.get(k)
        if f is None:
            missing += 1; continue
        vdiff += f["verdict"] != i["verdict"]
        for fld in ("requests", "sectors", "wavefronts"):
            if i.get(fld):
                worst = max(worst, abs(f[fld] - i[fld]) / i[fld])
    print(f"{app}: fast vs exact: {len(ex) - missing} of {len(ex)} instructions seen, "
          f"{vdiff} verdicts differ, largest relative error {100 * worst:.2f}%")
PY
if [ "${BENCH:-1}" = 1 ]; then bash bench/gpu-overhead.sh $B "$OUT/bench"; fi
