#!/bin/bash
# The vector plays' run-time alignment test (src/cuda/plays.c, vector_body): when a vector
# array's base address is not a multiple of 16 bytes, the fixed kernel runs the plain
# plays instead (one after the other). The emulator allocates every buffer 256-byte
# aligned, so this branch runs only with a buffer at offset(BYTES) (docs/usage.md,
# "Buffers"). `coalcheck fix --transform permute` on such a launch: the permutation's
# vector candidate (chosen by the cost model, which knows no base address), verified by
# the fix tool (every buffer bitwise equal to the original's), its figures those of the
# branch taken. (--transform auto would choose lift here: the fallback costs more sectors
# than lift's rewrite, as it should.) Needs nvcc (CUDA C input); skipped without it.
#
# Expected figures, by hand (tests/e2e/data/vector.cu, axpy_rows, line 11:
# y[i*n + j] += a * x[i*n + j]; n = 2048, launch grid 128x128, block 16x16, as in
# tests/e2e/fix_vector.sh; the fix: block (64, 1, 1), grid (8, 2048, 1), each thread the
# 4 consecutive columns j = 4t + q, q = 0..3, of row i = blockIdx.y; a warp (32 lanes,
# w its index in the row, 16 a row) covers j = 128w .. 128w + 127; 2048 x 16 = 32,768
# warps). One request per warp instruction (sm_90 model); a row is 8192 bytes, so a
# sector boundary.
# - y at offset(4), x aligned: the test fails, the plain plays run. Play q of lane L reads
#   byte 4 + 512w + 16L + 4q of y's row: q = 0, 1, 2 stay in sector floor(L/2), 16
#   sectors; q = 3 reaches 16L + 16, sector ceil(L/2), 0..16: 17 sectors. So y: 4
#   requests and 16 + 16 + 16 + 17 = 65 sectors a warp, x (aligned: 512w + 16L + 4q):
#   4 requests and 64 sectors. Line 11 loads: 32,768 x 8 = 262,144 requests, 32,768 x
#   (65 + 64) = 4,227,072 sectors; the store (y): 131,072 requests, 2,129,920 sectors.
#   The vector branch would be 65,536 load requests (fix_vector.sh): 4 times fewer.
#   The original (block 16x16, i from x: 16 rows x 2 columns a warp) at the same offset:
#   x 16 sectors a request; y's pairs of columns start at byte 4 + 8k (k = 0..3 by
#   blockIdx.y's warps), and 4 + 8 x 3 = 28 crosses a sector: 32 sectors in 1 of 4
#   warps, 16 + 16 / 4 = 20 a request; 131,072 warps: loads 131,072 x (16 + 20) =
#   4,718,592 sectors, the store 131,072 x 20 = 2,621,440.
# - x at offset(16), y aligned: 16-byte aligned still, the vector branch runs: x's float4
#   of lane L at 16 + 512w + 16L: 512 bytes from byte 16, 17 sectors; y's 16. Loads:
#   65,536 requests, 32,768 x 33 = 1,081,344 sectors; the store 32,768 and 524,288.
. "$(dirname "$0")/data/common.bash"
[ -n "$(find_nvcc)" ] || { echo "skip: nvcc not found"; exit 77; }
SRC="$COALCHECK_SRC/tests/e2e/data/vector.cu"

# launch Y_SPEC X_SPEC: axpy_rows's launch file on stdout
launch() {
  printf '%s\n' "$SRC --kernel axpy_rows" "--grid 128,128 --block 16,16" \
    "--arg '$1' --arg '$2' --arg a=1.5 --arg n=2048"
}

# fix NAME LAUNCH: coalcheck fix --transform permute into $TMP/NAME, $TMP/NAME.json
fix() {
  expect 0 "" "$COALCHECK" fix --transform permute --launch "$2" -o "$TMP/$1" -q --json "$TMP/$1.json"
}

# figures NAME LOADREQ LOADSEC STOREREQ STORESEC: line 11 after the fix
figures() {
  [ "$(line_sum "$TMP/$1.json" after load 11 requests)" = "$2" ] || fail "$1: load requests $(line_sum "$TMP/$1.json" after load 11 requests), not $2"
  [ "$(line_sum "$TMP/$1.json" after load 11 sectors)" = "$3" ] || fail "$1: load sectors $(line_sum "$TMP/$1.json" after load 11 sectors), not $3"
  [ "$(line_sum "$TMP/$1.json" after store 11 requests)" = "$4" ] || fail "$1: store requests"
  [ "$(line_sum "$TMP/$1.json" after store 11 sectors)" = "$5" ] || fail "$1: store sectors"
}

# ---- y at offset(4): the plain plays ----------------------------------------------------
launch 'y=f32[n*n]:offset(4):random:2' 'x=f32[n*n]:random:3' > "$TMP/y4.launch"
fix y4 "$TMP/y4.launch"
jcheck "$TMP/y4.json" 'd["verified"] is True and d["bitwise_equal"] is True and d["chosen"]["vector"] == 4 and d["chosen"]["block"] == [64, 1, 1]'
grep -q '% 16u == 0' "$TMP/y4/vector.cu" || fail "y4: no run-time alignment test"
grep -q "y=f32\[n\*n\]:offset(4):random:2" "$TMP/y4/axpy_rows.launch" || fail "y4: the fix's launch lost the offset"
[ "$(line_sum "$TMP/y4.json" before load 11 sectors)" = 4718592 ] || fail "y4: the original's load sectors"
[ "$(line_sum "$TMP/y4.json" before store 11 sectors)" = 2621440 ] || fail "y4: the original's store sectors"
figures y4 262144 4227072 131072 2129920
dump_compare "$TMP/y4.launch" "$TMP/y4" y

# ---- x at offset(16): aligned to 16 bytes, the vector plays -----------------------------
# x from a file beside the launch file (element k = (k mod 1000) / 8, exact in f32): the
# fix's launch file spells it again, the path made absolute, the offset kept
python3 -c "import array, sys; array.array('f', ((k % 1000) / 8 for k in range(2048 * 2048))).tofile(open(sys.argv[1], 'wb'))" "$TMP/x.bin"
launch 'y=f32[n*n]:random:2' 'x=f32[n*n]:offset(16):file:x.bin' > "$TMP/x16.launch"
fix x16 "$TMP/x16.launch"
jcheck "$TMP/x16.json" 'd["verified"] is True and d["bitwise_equal"] is True and d["chosen"]["vector"] == 4'
grep -qF "x=f32[n*n]:offset(16):file:$TMP/x.bin" "$TMP/x16/axpy_rows.launch" || fail "x16: the fix's launch lost the offset or the file: $(grep x= "$TMP/x16/axpy_rows.launch")"
figures x16 65536 1081344 32768 524288
dump_compare "$TMP/x16.launch" "$TMP/x16" y

finish
