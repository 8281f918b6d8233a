#!/bin/bash
# `coalcheck fix`'s loads-first plays (src/cuda/plays.h, cc_cuda_plays_loads_first; legality
# cc_fix_poly_loads_first): each thread of a reshaped permutation plays 4 threads along y,
# phase A keeping every play's loads, phase B storing, when isl proves that no play reads
# an element a play wrote before it. Needs nvcc (CUDA C input); skipped without it.
#
# Expected figures, by hand (tests/e2e/data/loads_first.cu, n = nx = ny = 2048, block
# 16x16, grid 128x128, so 2048 x 2048 threads; each kernel's row i on x, j on y):
# - every kernel: x<->y, then the reshape to block (256, 1, 1), grid (8, 2048, 1) = 16,384
#   CTAs; 2048 % 4 = 0 and 16,384 / 4 = 4,096 >= 4,096: 4 plays, grid (8, 512, 1).
# - axpy_rows (line 12) takes the vector plays now (tests/e2e/fix_vector.sh); axpy_off
#   (line 48, y[i*n+j+1] += a * x[i*n+j+1]) is the same with indices at 4 k + 1, which
#   the vector plays refuse (unit stride, not 16-byte aligned: as scalars their lanes
#   would be 4 elements apart), the reason with its place in plays_form. 2 loads a
#   play (y's old value, x) x 4 plays = 8 values kept, within
#   CC_FIX_LOADS_FIRST_MAX_KEPT (8): loads first, `__cc_v1[4]` the last kept array. Each
#   original thread runs the line once: 2048 * 2048 / 32 = 131,072 warp requests an
#   instruction, 32 consecutive j of one row, elements 32 k + 1 .. 32 k + 32: 128 bytes
#   starting 4 bytes into a sector, 5 sectors each. Loads 2 x 131,072 = 262,144 requests,
#   1,310,720 sectors; the store 131,072 requests, 655,360 sectors.
# - hz_step (line 23): legal (isl), but 5 loads a play x 4 plays = 20 values kept, over
#   the 8 that pay: the plays one after the other, the reason in plays_form.
# - raw_step: line 35 stores b[i*n+j], line 36 reads it back in the same thread: a value
#   kept in phase A would be the old one, so isl's check refuses (before any budget) and
#   the plays run one after the other, the reason naming both lines and b.
. "$(dirname "$0")/data/common.bash"
[ -n "$(find_nvcc)" ] || { echo "skip: nvcc not found"; exit 77; }
SRC="$COALCHECK_SRC/tests/e2e/data/loads_first.cu"

launch() { # launch KERNEL ARGS...: the launch file on stdout
  local k=$1
  shift
  printf '%s\n' "$SRC --kernel $k" "--grid 128,128 --block 16,16" "$@"
}

# ---- axpy_off: loads first (not vector) ------------------------------------------------
launch axpy_off "--arg 'y=f32[n*n+1]:random:2' --arg 'x=f32[n*n+1]:random:3' --arg a=1.5" \
  "--arg n=2048" > "$TMP/axpy.launch"
# --transform permute: under auto, lift now wins this kernel (its warp-aligned origin,
# thread x 0 at j = -1, makes both accesses 4 sectors a request: 1,579,008 sectors
# against the permutation's 1,966,080), which says nothing of the plays' form
expect 0 "" "$COALCHECK" fix --transform permute --launch "$TMP/axpy.launch" -o "$TMP/a" -q \
  --json "$TMP/a.json"
jcheck "$TMP/a.json" 'd["verified"] is True and d["chosen"]["plays"] == 4 and d["chosen"]["plays_form"].startswith("loads first; not vector: ") and "loads_first.cu:48:5: " in d["chosen"]["plays_form"] and "s access has stride 1 along x but is no aligned vector of 4" in d["chosen"]["plays_form"] and d["chosen"]["grid"] == [8, 512, 1]'
grep -q 'float __cc_v1\[4\];' "$TMP/a/loads_first.cu" || fail "axpy_off: two values kept a play"
grep -q '__cc_v2' "$TMP/a/loads_first.cu" && fail "axpy_off: a third value kept"
grep -q 'loads first' "$TMP/a/axpy_off.launch" || fail "axpy_off: launch comment"
[ "$(line_sum "$TMP/a.json" after load 48 requests)" = 262144 ] || fail "axpy_off: load requests"
[ "$(line_sum "$TMP/a.json" after load 48 sectors)" = 1310720 ] || fail "axpy_off: load sectors"
[ "$(line_sum "$TMP/a.json" after store 48 requests)" = 131072 ] || fail "axpy_off: store requests"
[ "$(line_sum "$TMP/a.json" after store 48 sectors)" = 655360 ] || fail "axpy_off: store sectors"
dump_compare "$TMP/axpy.launch" "$TMP/a" y

# ---- hz_step: legal, over the budget of kept values: one after the other ----------------
launch hz_step "--arg 'ex=f32[nx*(ny+1)]:random:2' --arg 'ey=f32[(nx+1)*ny]:random:3'" \
  "--arg 'hz=f32[nx*ny]:random:4' --arg nx=2048 --arg ny=2048" > "$TMP/hz.launch"
expect 0 "" "$COALCHECK" fix --transform auto --launch "$TMP/hz.launch" -o "$TMP/h" -q \
  --json "$TMP/h.json"
jcheck "$TMP/h.json" 'd["verified"] is True and d["chosen"]["plays"] == 4 and d["chosen"]["plays_form"].startswith("one after the other: ") and "5 loads a play x 4 plays = 20 values kept a thread" in d["chosen"]["plays_form"]'
grep -q '__cc_loaded' "$TMP/h/loads_first.cu" && fail "hz_step: loads first written"
dump_compare "$TMP/hz.launch" "$TMP/h" hz

# ---- raw_step: a read after a write in one thread: one after the other -----------------
launch raw_step "--arg 'a=f32[n*n]:random:5' --arg 'b=f32[n*n]:zero' --arg n=2048" \
  > "$TMP/raw.launch"
expect 0 "" "$COALCHECK" fix --transform auto --launch "$TMP/raw.launch" -o "$TMP/r" -q \
  --json "$TMP/r.json"
jcheck "$TMP/r.json" 'd["verified"] is True and d["chosen"]["plays"] == 4 and d["chosen"]["plays_form"].startswith("one after the other: line 36 reads an element of b that line 35")'
grep -q '__cc_loaded' "$TMP/r/loads_first.cu" && fail "raw_step: loads first written"
dump_compare "$TMP/raw.launch" "$TMP/r" a
dump_compare "$TMP/raw.launch" "$TMP/r" b

finish
