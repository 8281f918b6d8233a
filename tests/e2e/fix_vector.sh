#!/bin/bash
# `coalcheck fix`'s vector plays (src/cuda/plays.h, cc_cuda_plays_vector; plan and legality
# src/fix/vector.c with isl): after a reshaped permutation where the plays apply, each
# thread plays V consecutive threads along x with 16-byte loads and stores (float4,
# double2), stride-0 loads read once, statements not every play runs left scalar. Needs
# nvcc (CUDA C input); skipped without it.
#
# Expected figures, by hand (tests/e2e/data/vector.cu; n = 2048, grid 128x128, block
# 16x16: 2048 x 2048 threads, row i from x, column j from y):
# - every kernel: x<->y, then the reshape to block (256, 1, 1), grid (8, 2048, 1) = 16,384
#   CTAs, where 4 plays along y would apply (16,384 / 4 = 4,096 CTAs); the vector plays
#   replace them: V = 16 bytes / the element (4 floats, 2 doubles), block (256 / V, 1, 1),
#   the same grid (8, 2048, 1); blockIdx.y is the row i.
# - a warp's vector access: 32 lanes x 16 bytes = 512 consecutive bytes starting at a
#   multiple of 512 (a row is 2048 elements, a warp's first element a multiple of 32 V):
#   16 sectors. Requests: the sm_90 model counts one request per instruction for 16-byte
#   accesses (src/model/global_sector32.c, measured on an H200: 1 request, 16 sectors),
#   as Nsight Compute's l1tex__t_requests counts; the CUDA guide's "a warp's request" is
#   the instruction. So a vector access is 16 sectors in 1 request where the 4 scalar
#   plays' were 4 x 4 sectors in 4 requests: the same sectors in V times fewer requests.
# - axpy_rows (line 11): 2048 * 2048 / 4 threads = 32,768 warps; 2 loads: 65,536
#   requests, 1,048,576 sectors; the store: 32,768 requests, 524,288 sectors.
# - scale_rows (line 20), doubles: V = 2, block (128, 1, 1): 2048 * 2048 / 2 = 65,536
#   warps; the load of x: 65,536 requests, 1,048,576 sectors; the store the same.
# - row_elim: rows i = 0..2046 work (i < n - 1), 8 x 64 threads = 16 warps a row.
#   Line 30: a's old row i + 1 and c's as vectors (16 sectors each), m[i] a broadcast
#   (the same 4 bytes in 32 lanes: 1 request, 1 sector): loads 2047 x 16 x 3 = 98,256
#   requests, 2047 x 16 x (16 + 16 + 1) = 1,080,816 sectors; the store 32,752 requests,
#   524,032 sectors. Line 32 runs where j == 0 only, a scalar statement: one lane of one
#   warp a row, b[0] and b[i + 1]: 4,094 requests and sectors; its store 2,047 and 2,047.
#   (Row 0 of a instead of c's row would lose to the unreshaped permutation: its warps of
#   2 rows x 16 columns share row 0's sectors, 8 sectors per 32 elements against 8.25.)
# - axpy_ragged: j < n - 1 cuts the group of columns 2044..2047, so no statement runs in
#   every play of each group: no vectors, the loads-first plays (4 along y), and the
#   reason in plays_form.
. "$(dirname "$0")/data/common.bash"
[ -n "$(find_nvcc)" ] || { echo "skip: nvcc not found"; exit 77; }
SRC="$COALCHECK_SRC/tests/e2e/data/vector.cu"

launch() { # launch KERNEL ARGS...: the launch file on stdout
  local k=$1
  shift
  printf '%s\n' "$SRC --kernel $k" "--grid 128,128 --block 16,16" "$@"
}

# fix NAME LAUNCH: coalcheck fix --transform auto into $TMP/NAME, $TMP/NAME.json
fix() {
  expect 0 "" "$COALCHECK" fix --transform auto --launch "$2" -o "$TMP/$1" -q --json "$TMP/$1.json"
}

# ---- axpy_rows: float4 ------------------------------------------------------------------
launch axpy_rows "--arg 'y=f32[n*n]:random:2' --arg 'x=f32[n*n]:random:3' --arg a=1.5" \
  "--arg n=2048" > "$TMP/axpy.launch"
fix a "$TMP/axpy.launch"
jcheck "$TMP/a.json" 'd["verified"] is True and d["chosen"]["vector"] == 4 and d["chosen"]["plays"] == 1 and d["chosen"]["grid"] == [8, 2048, 1] and d["chosen"]["block"] == [64, 1, 1] and d["chosen"]["plays_form"].startswith("vector: each thread plays 4 consecutive threads along x with 16-byte loads")'
grep -q 'float4 __cc_w' "$TMP/a/vector.cu" || fail "axpy_rows: no float4 kept"
grep -q '% 16u == 0' "$TMP/a/vector.cu" || fail "axpy_rows: no run-time alignment test"
grep -q '__cc_scalar' "$TMP/a/vector.cu" || fail "axpy_rows: no scalar fallback"
[ "$(line_sum "$TMP/a.json" after load 11 requests)" = 65536 ] || fail "axpy_rows: load requests"
[ "$(line_sum "$TMP/a.json" after load 11 sectors)" = 1048576 ] || fail "axpy_rows: load sectors"
[ "$(line_sum "$TMP/a.json" after store 11 requests)" = 32768 ] || fail "axpy_rows: store requests"
[ "$(line_sum "$TMP/a.json" after store 11 sectors)" = 524288 ] || fail "axpy_rows: store sectors"
dump_compare "$TMP/axpy.launch" "$TMP/a" y

# ---- scale_rows: double2 ----------------------------------------------------------------
launch scale_rows "--arg 'y=f64[n*n]:zero' --arg 'x=f64[n*n]:random:4' --arg a=0.75" \
  "--arg n=2048" > "$TMP/scale.launch"
fix s "$TMP/scale.launch"
jcheck "$TMP/s.json" 'd["verified"] is True and d["chosen"]["vector"] == 2 and d["chosen"]["block"] == [128, 1, 1]'
grep -q 'double2 __cc_w' "$TMP/s/vector.cu" || fail "scale_rows: no double2 kept"
[ "$(line_sum "$TMP/s.json" after load 20 requests)" = 65536 ] || fail "scale_rows: load requests"
[ "$(line_sum "$TMP/s.json" after load 20 sectors)" = 1048576 ] || fail "scale_rows: load sectors"
[ "$(line_sum "$TMP/s.json" after store 20 requests)" = 65536 ] || fail "scale_rows: store requests"
[ "$(line_sum "$TMP/s.json" after store 20 sectors)" = 1048576 ] || fail "scale_rows: store sectors"
dump_compare "$TMP/scale.launch" "$TMP/s" y

# ---- row_elim: vectors, a broadcast, a scalar statement --------------------------------
launch row_elim "--arg 'a=f32[n*n]:random:5' --arg 'm=f32[n]:random:6' --arg 'c=f32[n*n]:random:8'" \
  "--arg 'b=f32[n]:random:7' --arg n=2048" > "$TMP/row.launch"
fix r "$TMP/row.launch"
jcheck "$TMP/r.json" 'd["verified"] is True and d["chosen"]["vector"] == 4 and "(2 statement-array pairs as vectors, 1 broadcast)" in d["chosen"]["plays_form"]'
[ "$(line_sum "$TMP/r.json" after load 30 requests)" = 98256 ] || fail "row_elim: line 30 load requests"
[ "$(line_sum "$TMP/r.json" after load 30 sectors)" = 1080816 ] || fail "row_elim: line 30 load sectors"
[ "$(line_sum "$TMP/r.json" after store 30 requests)" = 32752 ] || fail "row_elim: line 30 store requests"
[ "$(line_sum "$TMP/r.json" after store 30 sectors)" = 524032 ] || fail "row_elim: line 30 store sectors"
[ "$(line_sum "$TMP/r.json" after load 32 requests)" = 4094 ] || fail "row_elim: line 32 load requests"
[ "$(line_sum "$TMP/r.json" after load 32 sectors)" = 4094 ] || fail "row_elim: line 32 load sectors"
[ "$(line_sum "$TMP/r.json" after store 32 requests)" = 2047 ] || fail "row_elim: line 32 store requests"
dump_compare "$TMP/row.launch" "$TMP/r" a
dump_compare "$TMP/row.launch" "$TMP/r" b

# ---- axpy_ragged: a cut group: loads first, the reason said -----------------------------
launch axpy_ragged "--arg 'y=f32[n*n]:random:2' --arg 'x=f32[n*n]:random:3' --arg a=1.5" \
  "--arg n=2048" > "$TMP/rag.launch"
fix g "$TMP/rag.launch"
jcheck "$TMP/g.json" 'd["verified"] is True and d["chosen"]["vector"] == 1 and d["chosen"]["plays"] == 4 and d["chosen"]["plays_form"] == "loads first; not vector: no access with unit stride along x at 4-aligned indices in a statement that every group of 4 threads along x runs whole"'
grep -q '__cc_w' "$TMP/g/vector.cu" && fail "axpy_ragged: vectors written"
dump_compare "$TMP/rag.launch" "$TMP/g" y

finish
