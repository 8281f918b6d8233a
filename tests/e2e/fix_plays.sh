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
#   Size - 1 - t) and all 2048 columns. isl proves the loads-first plays legal (rows
#   xidx + 1 + t >= 1 are written, row t = 0 and m only read), and the vector plays too
#   (src/fix/vector.c): line 30's a and a[t] have unit stride along the new x (the
#   column) at indices 2048 (xidx + 1) + col and col, multiples of 4 at col = 4 k, and
#   the line runs for whole groups of 4 columns (2048 % 4 = 0); m[row][t] has stride 0
#   (a broadcast); line 32 runs at yidx == 0 only (scalar). So the vector plays replace
#   the 4 plays along y: 4 columns a thread, block (64, 1, 1), grid (8, 2048, 1); a row
#   is 8 x 64 threads = 16 warps, each vector access 32 lanes x 16 bytes = 512 bytes
#   from a multiple of 512: 1 request (sm_90: one request per instruction), 16 sectors.
#   The store: 2047 x 16 = 32,752 requests, 524,032 sectors; the three loads 16 + 1 + 16
#   sectors (a's row, m's element, a's row t): 98,256 requests, 2047 x 16 x 33 =
#   1,080,816 sectors. (The plays one after the other, before the vector plays: 131,008
#   store requests, 524,032 sectors; 393,024 load requests, 1,179,072 sectors.) The plays
#   keep every line's number (#line; no lambda, whose inlined code the report would put
#   on its call's line).
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
jcheck "$TMP/f.json" 'd["verified"] is True and d["chosen"]["permutation"] == "x<->y" and d["chosen"]["reshaped"] is True and d["chosen"]["plays"] == 1 and d["chosen"]["vector"] == 4 and d["chosen"]["plays_form"].startswith("vector: each thread plays 4 consecutive threads along x")'
grep -q '^--grid 8,2048,1 --block 64,1,1$' "$TMP/f/fan2.launch" || fail "2048: launch geometry"
grep -q 'each thread playing 4 threads along x, vectors' "$TMP/f/fan2.launch" || fail "2048: launch comment"
grep -q 'goto __cc_played' "$TMP/f/gaussian.cu" || fail "2048: the returns do not end one play"
grep -q 'goto __cc_scalar' "$TMP/f/gaussian.cu" || fail "2048: no scalar plays for unaligned arrays"
grep -q '\[=\]' "$TMP/f/gaussian.cu" && fail "2048: a lambda in the plays"
line=$(grep -n 'a_cuda\[Size \* (xidx + 1 + t) + (yidx + t)\] -=' "$EX/gaussian/gaussian.cu" | head -n1 | cut -d: -f1)
[ "$(line_sum "$TMP/f.json" after store "$line" requests)" = 32752 ] || fail "2048: store requests"
[ "$(line_sum "$TMP/f.json" after store "$line" sectors)" = 524032 ] || fail "2048: store sectors"
[ "$(line_sum "$TMP/f.json" after load "$line" requests)" = 98256 ] || fail "2048: load requests"
[ "$(line_sum "$TMP/f.json" after load "$line" sectors)" = 1080816 ] || fail "2048: load sectors"
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
