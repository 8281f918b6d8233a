#!/usr/bin/env bash
# `--backend gpu --gpu-mode inline --sample-ctas N` (src/cli/gpu_inline.c) without a GPU:
# the stand-in driver and launcher of gpu_inline.sh run the instrumented plan in the
# emulator, which is also the oracle for the exact figures.
#  - usage: N = 0 or junk, and --sample-ctas without --gpu-mode inline, exit 2 naming it;
#  - the naive transpose (uniform CTAs), N = 4: hand-derived below, bounds 0, and every
#    count equal to N = 1's;
#  - tests/e2e/data/ctasample.cu (CTAs differ), N = 5, 3, 7 (full and partial last runs),
#    and the Gaussian fan2_fixed (what id % N == 0 got 4x wrong), N = 4: each estimate
#    within its stated 95% bound of the emulator's exact figure, and the bound not 0;
#  - verdicts per instruction under N = 4 equal the emulator's on a stated set of the
#    bundled examples.
source "$(dirname "$0")/data/common.bash"
NVCC=$(find_nvcc)
[ -n "$NVCC" ] || { echo "skip: no nvcc"; exit 77; }
stand_in_driver
NAIVE="$COALCHECK_SRC/examples/transpose/naive.launch"
inline() { # inline N LAUNCH JSON: the inline run with --sample-ctas N
  LD_LIBRARY_PATH="$TMP/drv" COALCHECK_GPU_LAUNCH="$DATA/fake_gpu_launch.py" \
    "$COALCHECK" -q --backend gpu --gpu-mode inline --sample-ctas "$1" --launch "$2" \
    --json "$3" >"$3.txt" 2>"$TMP/err" || { fail "$2 --sample-ctas $1: the run"; cat "$TMP/err"; }
}

expect 2 "bad value '0' for --sample-ctas" "$COALCHECK" --backend gpu --gpu-mode inline \
  --sample-ctas 0 --launch "$NAIVE"
expect 2 "bad value '4x' for --sample-ctas" "$COALCHECK" --backend gpu --gpu-mode inline \
  --sample-ctas 4x --launch "$NAIVE"
expect 2 "--sample-ctas with a KERNEL.cu or .ptx samples the inline counters" "$COALCHECK" \
  --sample-ctas 4 --launch "$NAIVE"

# transpose_naive, grid 32x128 = 4096 CTAs of 8 warps; with N = 4 one CTA of each of the
# 1024 runs of 4 ids counts (ptx_instrument.sh: 8192 requests per instruction, 32768 load
# sectors, 262144 store sectors), scaled by 4096 / 1024 = 4: 32768 requests, load 4
# sectors a request (32 consecutive floats) = 131072, store 32 (floats 4096 bytes apart)
# = 1048576; every CTA alike, so both bounds are 0.
inline 1 "$NAIVE" "$TMP/naive1.json"
inline 4 "$NAIVE" "$TMP/naive4.json"
python3 - "$TMP/naive1.json" "$TMP/naive4.json" <<'PY' || fail "transpose_naive --sample-ctas 4"
import json, sys
k1, k4 = (json.load(open(p))["kernels"][0] for p in sys.argv[1:3])
bad = []
smp = k4["sampling"] or {}
if (smp.get("ctas"), smp.get("sampled_ctas"), smp.get("bound95")) != \
        (4096, 1024, {"requests": 0, "sectors": 0}):
    bad.append(("sampling", smp))
if k1["sampling"] is not None:
    bad.append(("N=1 sampling", k1["sampling"]))
want = {"load": (32768, 131072), "store": (32768, 1048576)}
one = {i["ptx_index"]: i for i in k1["instructions"]}
for i in k4["instructions"]:
    if (i["requests"], i["sectors"]) != want[i["op"]]:
        bad.append((i["op"], i["requests"], i["sectors"], want[i["op"]]))
    if i["bound95"] != {"requests": 0, "sectors": 0}:
        bad.append((i["op"], "bound95", i["bound95"]))
    for f in ("requests", "thread_accesses", "bytes_requested", "sectors", "ideal_sectors",
              "verdict", "stride"):
        if i[f] != one[i["ptx_index"]][f]:
            bad.append((i["op"], f, i[f], one[i["ptx_index"]][f]))
if len(k4["instructions"]) != 2 or k4["totals"]["requests"] != k1["totals"]["requests"]:
    bad.append(("instructions or totals", len(k4["instructions"])))
print("transpose_naive, 1 CTA in 4: %d differences %s" % (len(bad), bad[:6]))
sys.exit(1 if bad else 0)
PY
grep -q "sampled: 1,024 of 4,096 CTAs counted.*requests ±0.0%, sectors ±0.0%" \
  "$TMP/naive4.json.txt" || fail "transpose_naive: the text report's sampling line"

# Kernels whose CTAs differ: each estimate within its bound of the emulator's figure, the
# verdicts the emulator's, and the counted CTAs, by hand: of each run of N ids one counts
# (ptx_inst_pick(r, N) = murmur3's finaliser of r, mod N, computed by hand in python), the
# last, partial run's only when its pick lies inside.
cat >"$TMP/within.py" <<'PY'
import json, sys
emu, est = (json.load(open(p))["kernels"][0] for p in sys.argv[1:3])
ctas, counted, label = int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
bad, shown = [], []
smp = est["sampling"] or {}
if (smp.get("ctas"), smp.get("sampled_ctas")) != (ctas, counted):
    bad.append(("sampling", smp))
def within(what, got, exact, bound):
    shown.append("%s %s (exact %s, +-%.1f%%)" % (what, got, exact, 100 * (bound or 0)))
    if bound is None or abs(got - exact) > bound * got + 0.5:  # + 0.5: rounded counts
        bad.append((what, got, exact, bound))
e = {i["ptx_index"]: i for i in emu["instructions"] if i["requests"]}
for i in est["instructions"]:
    x = e[i["ptx_index"]]
    f = "wavefronts" if i["space"] == "shared" else "sectors"
    within(i["op"] + " requests", i["requests"], x["requests"], i["bound95"]["requests"])
    within(i["op"] + " " + f, i[f], x[f], i["bound95"]["sectors"])
    if i["verdict"] != x["verdict"]:
        bad.append((i["op"], "verdict", i["verdict"], x["verdict"]))
    if label.startswith("ragged") and i["op"] == "store" and \
            (i["requests"], i["bound95"]["requests"]) != (1000, 0):
        bad.append(("store requests", i["requests"], i["bound95"]))
within("kernel requests", est["totals"]["requests"], emu["totals"]["requests"],
       smp.get("bound95", {}).get("requests"))
within("kernel sectors", est["totals"]["sectors"], emu["totals"]["sectors"],
       smp.get("bound95", {}).get("sectors"))
if not smp.get("bound95", {}).get("requests"):
    bad.append(("a non-uniform kernel with a 0 or unknown bound", smp))
print("%s: %s; %d differences %s" % (label, "; ".join(shown[:6]), len(bad), bad[:6]))
sys.exit(1 if bad else 0)
PY
# ragged (ctasample.cu), 1000 CTAs: N = 5, 200 runs, 200 counted; N = 3, 333 runs and
# one id left, pick(333, 3) = 1: not inside, 333 counted; N = 7, 142 runs and 6 ids left,
# pick(142, 7) = 1: inside, 143 counted. Each CTA's lane 0 stores once: 1000 store
# requests, exact (bound 0) whatever the sample.
# fan2_fixed (examples/gaussian), 16 x 64 CTAs, N = 4: 256 counted; its row-0 branch runs
# only in the x = 0 column, which id % 4 == 0 counted in every row (4x).
"$COALCHECK" -q --launch "$DATA/ctasample.launch" --json "$TMP/ragged.emu.json" >/dev/null \
  2>"$TMP/err" || { fail "ragged: the emulator's run"; cat "$TMP/err"; }
for nc in 5:200 3:333 7:143; do
  inline "${nc%:*}" "$DATA/ctasample.launch" "$TMP/ragged${nc%:*}.json"
  python3 "$TMP/within.py" "$TMP/ragged.emu.json" "$TMP/ragged${nc%:*}.json" 1000 "${nc#*:}" \
    "ragged, 1 CTA in ${nc%:*}" || fail "ragged --sample-ctas ${nc%:*}"
done
FAN2="$COALCHECK_SRC/examples/gaussian/fan2_fixed.launch"
"$COALCHECK" -q --launch "$FAN2" --json "$TMP/fan2.emu.json" >/dev/null 2>"$TMP/err" ||
  { fail "fan2_fixed: the emulator's run"; cat "$TMP/err"; }
inline 4 "$FAN2" "$TMP/fan2.json"
python3 "$TMP/within.py" "$TMP/fan2.emu.json" "$TMP/fan2.json" 1024 256 \
  "fan2_fixed, 1 CTA in 4" || fail "fan2_fixed --sample-ctas 4"

# verdicts: N = 4 against the emulator (a non-sampled CTA could hold a larger stride;
# none of these does)
for launch in "$COALCHECK_SRC"/examples/transpose/tiled.launch \
              "$COALCHECK_SRC"/examples/histogram/shared.launch \
              "$COALCHECK_SRC"/examples/gemv/cols.launch \
              "$COALCHECK_SRC"/examples/cell3d/zfast.launch; do
  name=$(basename "$(dirname "$launch")")_$(basename "$launch" .launch)
  "$COALCHECK" -q --launch "$launch" --json "$TMP/$name.emu.json" >/dev/null 2>"$TMP/err" ||
    { fail "$name: the emulator's run"; cat "$TMP/err"; continue; }
  inline 4 "$launch" "$TMP/$name.json"
  python3 - "$TMP/$name.emu.json" "$TMP/$name.json" <<'PY' || fail "$name: verdicts differ"
import json, sys
emu, inl = (json.load(open(p))["kernels"][0] for p in sys.argv[1:3])
e = {i["ptx_index"]: i["verdict"] for i in emu["instructions"]
     if i["space"] in ("global", "shared") and i["requests"]}
g = {i["ptx_index"]: i["verdict"] for i in inl["instructions"]}
print("%s, 1 CTA in 4: verdicts %s, emulator %s" % (emu["mangled_name"], g, e))
sys.exit(0 if e == g and g else 1)
PY
done
finish
