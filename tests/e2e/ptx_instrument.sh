#!/usr/bin/env bash
# The inline counting pass (src/ptx/instrument.c, issue 14) under test, the emulator as
# the oracle: for every bundled example launch and tests/e2e/data/ptxinst.cu (vector,
# 1/2/8/16-byte, guarded, divergent, atomic, shared-conflict accesses) and
# tests/e2e/data/ptxinst_generic.cu (generic loads of one and of two spaces per warp, a
# pointer read from memory, local arrays of 4- and 8-byte elements), the instrumented
# PTX runs in the emulator and its counter buffer must equal, per instruction, the
# emulator's own requests, sectors, lanes, wavefronts and ways for the original PTX
# (tests/e2e/data/ptxinst_compare.py); every instrumented module must pass
# ptxas -arch=sm_90. CTA sampling: checked by hand on the naive transpose.
source "$(dirname "$0")/data/common.bash"
NVCC=$(find_nvcc)
[ -n "$NVCC" ] || { echo "skip: no nvcc"; exit 77; }
[ -n "${COALCHECK_PTXINST:-}" ] || { echo "skip: COALCHECK_PTXINST is not set"; exit 77; }
PTXAS="$(dirname "$NVCC")/ptxas"

# one LAUNCH file: compile its .cu once, run the original and the instrumented PTX
check_launch() {
  local launch=$1 sample=${2:-1} dir name cu work body bytes
  dir=$(dirname "$launch")
  name=$(basename "$dir")_$(basename "$launch" .launch)
  work="$TMP/$name"
  cp -r "$dir" "$work"
  body=$(grep -v '^#' "$launch")
  cu=$(echo "$body" | head -n1 | awk '{print $1}')
  "$NVCC" -ptx -lineinfo -arch=sm_90 "$work/$cu" -o "$work/k.ptx" 2>"$TMP/err" ||
    { fail "$name: nvcc"; cat "$TMP/err"; return; }
  "$COALCHECK_PTXINST" -s 4 -S "$sample" "$work/k.ptx" "$work/ki.ptx" "$work/k.map" 2>"$TMP/err" ||
    { fail "$name: coalcheck-ptxinst"; cat "$TMP/err"; return; }
  if [ -x "$PTXAS" ]; then
    "$PTXAS" -arch=sm_90 "$work/ki.ptx" -o "$work/ki.cubin" 2>"$TMP/err" ||
      { fail "$name: ptxas refuses the instrumented PTX"; head -5 "$TMP/err"; }
  fi
  echo "$body" | sed "1s|^$cu|k.ptx|" >"$work/ref.launch"
  echo "$body" | sed "1s|^$cu|ki.ptx|" >"$work/inst.launch"
  bytes=$(head -n1 "$work/k.map" | awk '{print $8}')
  "$COALCHECK" -q --launch "$work/ref.launch" --json "$work/ref.json" >/dev/null 2>"$TMP/err" ||
    { fail "$name: the original did not run"; cat "$TMP/err"; return; }
  "$COALCHECK" -q --launch "$work/inst.launch" --arg "cc=u64[$((bytes / 8))]:zero" \
    --dump "cc=$work/cnt.bin" >/dev/null 2>"$TMP/err" ||
    { fail "$name: the instrumented PTX did not run"; cat "$TMP/err"; return; }
  MANGLED=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['kernels'][0]['mangled_name'])" "$work/ref.json")
  WORK=$work
}

launches=("$COALCHECK_SRC"/examples/*/*.launch "$DATA/ptxinst.launch" "$DATA/ptxinst_generic.launch")
if [ -n "${COALCHECK_SANITIZED:-}" ]; then # ASan/UBSan: a stated sample
  launches=("$COALCHECK_SRC"/examples/transpose/tiled.launch
            "$COALCHECK_SRC"/examples/histogram/shared.launch "$DATA/ptxinst.launch"
            "$DATA/ptxinst_generic.launch")
fi
for launch in "${launches[@]}"; do
  WORK=
  check_launch "$launch"
  [ -n "$WORK" ] || continue
  python3 "$DATA/ptxinst_compare.py" "$WORK/ref.json" "$WORK/k.map" "$WORK/cnt.bin" \
    "$MANGLED" >"$TMP/cmp" || { fail "$launch: counters differ"; cat "$TMP/cmp"; continue; }
  tail -n1 "$TMP/cmp"
done

# CTA sampling, by hand: transpose_naive, grid 32x128 = 4096 CTAs of 8 warps; with -S 4
# one CTA of each run of 4 ids counts (ptx_inst_pick), 1024 CTAs: 8192 requests per
# instruction (every CTA alike, whichever counts); a warp's
# load reads 32 consecutive floats (128 bytes, 4 sectors): 32768 sectors; its store
# writes 32 floats 4096 bytes apart (32 sectors): 262144 sectors; 32 lanes each.
WORK=
check_launch "$COALCHECK_SRC/examples/transpose/naive.launch" 4
if [ -n "$WORK" ]; then
  python3 - "$WORK/k.map" "$WORK/cnt.bin" <<'PY' || fail "CTA sampling: counts differ"
import struct, sys
lines = open(sys.argv[1]).read().split("\n")
shards = int(lines[0].split()[1])
raw = open(sys.argv[2], "rb").read()
c = struct.unpack("<%dQ" % (len(raw) // 8), raw)
want = {"load": [8192, 32768, 262144], "store": [8192, 262144, 262144]}
ok = True
for line in lines[1:]:
    if "transpose_naive" not in line or line.startswith("skip "):
        continue
    site, kind = int(line.split()[0]), line.split()[4]
    got = [sum(c[(site * shards + s) * 8 + f] for s in range(shards)) for f in range(3)]  # 8 fields
    print("sampled", kind, got, "want", want[kind])
    ok &= got == want[kind]
sys.exit(0 if ok else 1)
PY
fi
finish
