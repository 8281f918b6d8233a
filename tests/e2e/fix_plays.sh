#!/bin/bash
# `coalcheck fix`'s plays (src/cuda/plays.h): a reshaped permutation of straight-line CUDA C
# that leaves at least 4096 CTAs after dividing y by 4 makes each thread play 4 threads
# along y. Needs nvcc (CUDA C input); skipped without it.
#
# Expected figures, by hand (examples/gaussian/gaussian.cu's fan2, t = 0):
# - Size 2048, grid 128x128, block 16x16. x<->y, then the reshape: extents (2048, 2048),
#   256 threads a block: x the largest power of two dividing 2048 and 256 = 256, y 1:
#   block (256, 1, 1), grid (8, 2048, 1) = 16,384 CTAs; 2048 % 4 = 0 and 16,384 / 4 =
#   4,096 >= 4,096: 4 plays, grid (8, 512, 1).
#   Line 30 (a[row][col] -= m[row][t] * a[t][col]) runs for rows xidx 0..2046 (xidx <
#   Size - 1 - t) and all 2048 columns: 2047 * 2048 / 32 = 131,008 warp requests an
#   instruction; the store 4 sectors each (524,032); the three loads 4 + 1 + 4 sectors
#   (a's row, m's element broadcast, a's row t): 393,024 requests, 1,179,072 sectors.
#   isl proves the loads-first plays legal (rows xidx + 1 + t >= 1 are written, row t = 0
#   and m only read), but a play keeps 6 loads (line 30's three, line 32's three): 6 x 4
#   = 24 values kept a thread, over CC_FIX_LOADS_FIRST_MAX_KEPT (8): one after the other.
#   The plays keep every line's number (#line; no lambda, whose inlined code the report
#   would put on its call's line).
# - Size 1024, grid 64x64: the reshape gives grid (4, 1024, 1) = 4,096 CTAs, 1,024 after
#   4 plays: under 4,096, no plays.
. "$(dirname "$0")/data/common.bash"
[ -n "$(find_nvcc)" ] || { echo "skip: nvcc not found"; exit 77; }
EX="$COALCHECK_SRC/examples"

launch() { # launch SIZE GRID: fan2's launch file on stdout
  printf '%s\n' "$EX/gaussian/gaussian.cu --kernel fan2" "--grid $2,$2 --block 16,16" \
    "--arg 'm_cuda=f32[Size*Size]:random:13' --arg 'a_cuda=f32[Size*Size]:random:14'" \
    "--arg 'b_cuda=f32[Size]:random:15' --arg Size=$1 --arg j1=$1 --arg t=0"
}

# ---- 2048: 4 plays ----------------------------------------------------------------------
launch 2048 128 > "$TMP/fan2.launch"
expect 0 "" "$COALCHECK" fix --transform permute --launch "$TMP/fan2.launch" -o "$TMP/f" -q \
  --json "$TMP/f.json"
jcheck "$TMP/f.json" 'd["verified"] is True and d["chosen"]["permutation"] == "x<->y" and d["chosen"]["reshaped"] is True and d["chosen"]["plays"] == 4 and d["chosen"]["plays_form"].startswith("one after the other: ") and "6 loads a play x 4 plays = 24 values kept" in d["chosen"]["plays_form"]'
grep -q '^--grid 8,512,1 --block 256,1,1$' "$TMP/f/fan2.launch" || fail "2048: launch geometry"
grep -q 'each thread playing 4 threads along y' "$TMP/f/fan2.launch" || fail "2048: launch comment"
grep -q 'goto __cc_played' "$TMP/f/gaussian.cu" || fail "2048: the returns do not end one play"
grep -q '__cc_loaded' "$TMP/f/gaussian.cu" && fail "2048: loads first over the budget"
grep -q '\[=\]' "$TMP/f/gaussian.cu" && fail "2048: a lambda in the plays"
line=$(grep -n 'a_cuda\[Size \* (xidx + 1 + t) + (yidx + t)\] -=' "$EX/gaussian/gaussian.cu" | head -n1 | cut -d: -f1)
[ "$(line_sum "$TMP/f.json" after store "$line" requests)" = 131008 ] || fail "2048: store requests"
[ "$(line_sum "$TMP/f.json" after store "$line" sectors)" = 524032 ] || fail "2048: store sectors"
[ "$(line_sum "$TMP/f.json" after load "$line" requests)" = 393024 ] || fail "2048: load requests"
[ "$(line_sum "$TMP/f.json" after load "$line" sectors)" = 1179072 ] || fail "2048: load sectors"
dump_compare "$TMP/fan2.launch" "$TMP/f" a_cuda
dump_compare "$TMP/fan2.launch" "$TMP/f" b_cuda

# ---- 1024: too few CTAs for plays -------------------------------------------------------
launch 1024 64 > "$TMP/small.launch"
expect 0 "" "$COALCHECK" fix --transform permute --launch "$TMP/small.launch" -o "$TMP/s" -q \
  --json "$TMP/s.json"
jcheck "$TMP/s.json" 'd["verified"] is True and d["chosen"]["reshaped"] is True and d["chosen"]["plays"] == 1'
grep -q '^--grid 4,1024,1 --block 256,1,1$' "$TMP/s/fan2.launch" || fail "1024: launch geometry"
grep -q '__cc_played' "$TMP/s/gaussian.cu" && fail "1024: plays written"

# ---- PTX in: the plays wrap CUDA C only -------------------------------------------------
"$(find_nvcc)" -ptx -lineinfo -arch=sm_90 -o "$TMP/g.ptx" "$EX/gaussian/gaussian.cu" ||
  fail "nvcc -ptx failed"
expect 0 "" "$COALCHECK" fix "$TMP/g.ptx" --kernel fan2 --grid 128,128 --block 16,16 \
  --arg 'm_cuda=f32[Size*Size]:random:13' --arg 'a_cuda=f32[Size*Size]:random:14' \
  --arg 'b_cuda=f32[Size]:random:15' --arg Size=2048 --arg j1=2048 --arg t=0 \
  --transform permute -o "$TMP/p" -q --json "$TMP/p.json"
jcheck "$TMP/p.json" 'd["verified"] is True and d["chosen"]["plays"] == 1 and d["chosen"]["grid"] == [8, 2048, 1]'

finish
