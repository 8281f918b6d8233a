#!/usr/bin/env bash
# `--backend gpu --gpu-mode inline` end to end without a GPU: a stand-in libcuda.so.1 (what
# the probe calls) and a stand-in launcher (data/fake_gpu_launch.py) that runs the launch
# plan's instrumented PTX in the emulator. The report of the inline mode must equal the
# emulator's own for the same launch on every figure the inline counters carry: per PTX
# instruction requests, lanes, sectors and ideal sectors, wavefronts, ideal wavefronts and
# ways, Algorithm 1's strides and the verdict.
source "$(dirname "$0")/data/common.bash"
NVCC=$(find_nvcc)
[ -n "$NVCC" ] || { echo "skip: no nvcc"; exit 77; }
stand_in_driver

# a wrong mode, and inline without the gpu backend
expect 2 "bad value 'fast' for --gpu-mode" "$COALCHECK" --gpu-mode fast \
  --launch "$COALCHECK_SRC/examples/transpose/naive.launch"
expect 2 "--gpu-mode inline counts on the GPU: add --backend gpu" "$COALCHECK" --gpu-mode inline \
  --launch "$COALCHECK_SRC/examples/transpose/naive.launch"

for launch in "$COALCHECK_SRC"/examples/transpose/tiled.launch \
              "$COALCHECK_SRC"/examples/histogram/shared.launch \
              "$COALCHECK_SRC"/examples/gemv/cols.launch "$DATA/ptxinst.launch"; do
  name=$(basename "$(dirname "$launch")")_$(basename "$launch" .launch)
  "$COALCHECK" -q --launch "$launch" --json "$TMP/$name.emu.json" >/dev/null 2>"$TMP/err" ||
    { fail "$name: the emulator's run"; cat "$TMP/err"; continue; }
  LD_LIBRARY_PATH="$TMP/drv" COALCHECK_GPU_LAUNCH="$DATA/fake_gpu_launch.py" \
    "$COALCHECK" -q --backend gpu --gpu-mode inline --launch "$launch" \
    --json "$TMP/$name.inline.json" >"$TMP/$name.txt" 2>"$TMP/err" ||
    { fail "$name: the inline run"; cat "$TMP/err"; continue; }
  python3 - "$TMP/$name.emu.json" "$TMP/$name.inline.json" <<'PY' || fail "$name: reports differ"
import json, sys
emu, inl = (json.load(open(p))["kernels"][0] for p in sys.argv[1:3])
keys = ["requests", "thread_accesses", "bytes_requested", "sectors", "ideal_sectors",
        "wavefronts", "ideal_wavefronts", "bank_conflict_ways", "verdict", "op", "space",
        "size_bytes"]
# never executed: the emulator lists them with 0, the GPU backends do not list them
e = {i["ptx_index"]: i for i in emu["instructions"]
     if i["space"] in ("global", "shared") and i["requests"]}
g = {i["ptx_index"]: i for i in inl["instructions"]}
bad = sorted(set(e) ^ set(g))
for k in sorted(set(e) & set(g)):
    for f in keys:
        if e[k].get(f) != g[k].get(f):
            bad.append((k, f, e[k].get(f), g[k].get(f)))
    se, sg = e[k].get("stride") or {}, g[k].get("stride") or {}
    for f in ("min", "max", "count"):
        if se.get(f) != sg.get(f):
            bad.append((k, "stride." + f, se.get(f), sg.get(f)))
    if abs(se.get("avg", 0) - sg.get("avg", 0)) > 1e-9 * max(1, se.get("avg", 0)):
        bad.append((k, "stride.avg", se.get("avg"), sg.get("avg")))
print("%s: %d instructions, %d differences %s" % (emu["mangled_name"], len(g), len(bad), bad[:8]))
sys.exit(1 if bad or not g else 0)
PY
done
finish
