#!/bin/bash
# `coalcheck fix --transform lift` (loop lifting, CGO 2015 Sec. 4.3, Algorithm 2) on the
# kernels of examples/lift. Needs nvcc (the inputs are CUDA C) and libclang (the
# extractor); skipped without nvcc.
#
# Expected figures, derived by hand in examples/lift/lift.cu's comment and
# tests/examples/test_lift.c (before) and here (after):
# - row_store (Listing 3), n = 64: 4096 sectors -> 512 (a warp stores 32 consecutive
#   floats of a row); launch grid 1,16,1 block 64,4,1 (i: 64 values in x, t: 64 in y).
# - myocyte_rows, 64 x 32: 6144 -> 768 (3 instructions x 64 requests x 4 sectors).
# - covar, m = 64, n = 16: 47104 -> 13120. After: warp (j1, h) holds j2 = 32h..32h+31,
#   lanes j2 >= j1 active. The zero store and the sum's 16 stores: a contiguous run in row
#   j1, ceil-by-sector: h = 1: 33 x 4 + 76 (j1 = 33..63), h = 0: 80 (j1 = 0..31): 288
#   each (17 x 288 = 4896); data[i*m + j2] the same run in row i: 16 x 288 = 4608;
#   data[i*m + j1] one float for the warp: 1 sector x 96 requests x 16 = 1536; the
#   transposed store symmat[j2*m + j1] has lanes 64 floats apart: one sector per
#   instance, 2080. 4896 + 4608 + 1536 + 2080 = 13120.
# - corr, m = 64, n = 16: 45759 -> 12823. x = j2, thread x 0 at j2 = 0 (the loop starts
#   at 1; rows of 64 floats start on a sector, so warps of 32 j2 from 0 do too): warp
#   (j1, h) holds j2 = 32h..32h+31, lanes j2 >= j1 + 1 active. The diagonal, from the
#   thread j2 = 1 of each j1 < 63: 63 requests of 1 sector. Row runs [max(j1+1, 32h),
#   min(32h+31, 63)], sectors from floor(start/8) to the run's last: h = 0, j1 = 0..30:
#   7x4 + 8x3 + 8x2 + 8x1 = 76; h = 1: j1 = 0..31 [32, 63] 4 each (128), j1 = 32..62 76:
#   280 sectors in 94 requests per statement instance set: zero store 280, the sum's
#   stores 16 x 280, data[i*m + j2] 16 x 280; data[i*m + j1] 94 requests x 16 of 1
#   sector = 1504; transposed store, one sector per pair j2 > j1: 2016.
#   63 + 280 + 4480 + 4480 + 1504 + 2016 = 12823 (13895 with thread x 0 at j2 = 1).
# - gemm_rows, n = 32: 34816 -> 5248 (lift.cu), the sum kept in a register declared once
#   per thread; launch grid 1,4,1 block 32,8,1.
# - row_prefix: refused (exit 11), the loop over j carrying the dependence named.
# - the 2-D and 3-D kernels of lift2d.cu: below, with their figures.
# Independently of the tool's own check, the original launch and DIR/K.launch are both
# run by the main command with --dump, and the dumps compared with cmp: bitwise equal.
. "$(dirname "$0")/data/common.bash"
[ -n "$(find_nvcc)" ] || { echo "skip: nvcc not found"; exit 77; }
EX="$COALCHECK_SRC/examples/lift"

# lifted NAME BEFORE AFTER GRID BLOCK BUF [FILE]: fix --transform lift on NAME.launch (of
# FILE, default lift.cu) is verified with those kernel sectors and that launch, and BUF
# dumps identically
lifted() {
  local name=$1 before=$2 after=$3 grid=$4 block=$5 buf=$6 cu=${7:-lift.cu}
  expect 0 "" "$COALCHECK" fix --transform lift --launch "$EX/$name.launch" -o "$TMP/$name" \
    -q --json "$TMP/$name.json"
  for f in "$cu" "$name.launch" fix.diff; do
    [ -s "$TMP/$name/$f" ] || fail "$name: $f not written"
  done
  jcheck "$TMP/$name.json" "d['verified'] is True and d['chosen']['transform'] == 'lift' and \
d['before']['kernels'][0]['totals']['sectors'] == $before and \
d['after']['kernels'][0]['totals']['sectors'] == $after"
  grep -q "^--grid $grid --block $block\$" "$TMP/$name/$name.launch" ||
    fail "$name: launch geometry (want --grid $grid --block $block)"
  # the kernel keeps its name and parameters: its signature line is unchanged
  grep -q "^__global__ void $name(" "$TMP/$name/$cu" || fail "$name: signature changed"
  dump_compare "$EX/$name.launch" "$TMP/$name" "$buf"
}

lifted row_store 4096 512 1,16,1 64,4,1 a
lifted myocyte_rows 6144 768 1,8,1 32,8,1 y
lifted covar 47104 13120 1,16,1 64,4,1 symmat
lifted corr 45759 12823 1,16,1 64,4,1 symmat
lifted gemm_rows 34816 5248 1,4,1 32,8,1 c

# 2-D and 3-D geometry (examples/lift/lift2d.cu; before figures there, after here):
# - scale_rows2d: k on x (32: block x 32), i on y (64 rows: 256 / 32 = 8 a block, 8
#   blocks), b on z (8: 1 a block, 8 blocks): grid 1,8,8 block 32,8,1; 32768 -> 4096.
# - covar2d: the geometry permuted (j2 on x: 64, one block of 64; j1 on y: 4 a block, 16
#   blocks): grid 1,16,1 block 64,4,1; 14336 -> 10752.
# - add3d: k on x (32), i on y (32: 8 a block, 4 blocks), j on z (4: 1 a block, 4
#   blocks), b a loop in the kernel: grid 1,4,4 block 32,8,1; 32768 -> 4096.
lifted scale_rows2d 32768 4096 1,8,8 32,8,1 Y lift2d.cu
lifted covar2d 14336 10752 1,16,1 64,4,1 symmat lift2d.cu
lifted add3d 32768 4096 1,4,4 32,8,1 out lift2d.cu
jcheck "$TMP/scale_rows2d.json" '"the old indices x and y moved to y and z" in d["what"]'
jcheck "$TMP/covar2d.json" 'd["what"].startswith("the global index y of kernel covar2d")'
jcheck "$TMP/add3d.json" '"the old indices x, y and z moved to y, z and a loop" in d["what"]'
grep -q '^    for (int __cc_c0 = 0; ' "$TMP/add3d/lift2d.cu" || fail "add3d: b is not a loop"
grep -qF 'const uint3 threadIdx = make_uint3((unsigned)(__cc_ty) % 32u, (unsigned)(__cc_tz) % 4u, (unsigned)(__cc_c0) % 2u);' \
  "$TMP/add3d/lift2d.cu" || fail "add3d: the original thread's threadIdx"
# the batched gemv: its loop carries the sum and no geometry dimension does better
line=$(grep -n 'for (int k = 0; k < K; k++)' "$EX/lift2d.cu" | tail -n1 | cut -d: -f1)
expect 11 "lift2d.cu:$line:5: the loop over k carries a dependence (s: two instances (0, 0) threads" \
  "$COALCHECK" fix --transform lift --launch "$EX/batched_gemv.launch" -o "$TMP/bgemv" -q
[ -e "$TMP/bgemv" ] && fail "batched_gemv: DIR written for a refusal"
# not affine in y: threadIdx.y alone with 2 blocks in y (g_y mod 4), refused with its place
cat > "$TMP/bad2d.cu" <<'CU'
__global__ void bad2d(float *a, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < n; k++)
    a[(threadIdx.y * 64 + i) * n + k] = 1.0f;
}
CU
expect 11 "bad2d.cu:5:7: \`(threadIdx.y * 64 + i) * n + k\` in the subscript is not affine: threadIdx.y and blockIdx.y are used apart from blockIdx.y * blockDim.y + threadIdx.y" \
  "$COALCHECK" fix --transform lift "$TMP/bad2d.cu" --kernel bad2d --grid 2,2 --block 32,4 \
  --arg 'a=f32[512*32]:zero' --arg n=32 -o "$TMP/bad2d" -q

# the running sum: its only loop carries a dependence
line=$(grep -n 'for (int j = 1; j < n; j++)' "$EX/lift.cu" | cut -d: -f1)
expect 11 "lift.cu:$line:5: the loop over j carries a dependence (a: " \
  "$COALCHECK" fix --transform lift --launch "$EX/row_prefix.launch" -o "$TMP/prefix" -q
[ -e "$TMP/prefix" ] && fail "row_prefix: DIR written for a refusal"

finish
