#!/bin/bash
# `coalcheck fix --transform auto` on PolyBench/GPU shapes the fix engine was not written
# for (bench/unseen/polybench, README.md there): the chosen transformation, verification
# and sector figures derived by hand below; refusals that name the construct and place.
# Needs nvcc (CUDA C inputs); skipped without it.
. "$(dirname "$0")/data/common.bash"
[ -n "$(find_nvcc)" ] || { echo "skip: nvcc not found"; exit 77; }
PB="$COALCHECK_SRC/bench/unseen/polybench"

# stores FILE WHICH REQUESTS SECTORS: the global stores of report WHICH (before/after) of
# fix JSON FILE total REQUESTS requests and SECTORS sectors
stores() {
  jcheck "$1" "sum(i['requests'] for i in d['$2']['kernels'][0]['instructions'] if i['op'] == 'store' and i['space'] == 'global') == $3"
  jcheck "$1" "sum(i['sectors'] for i in d['$2']['kernels'][0]['instructions'] if i['op'] == 'store' and i['space'] == 'global') == $4"
}

# ---- syrk (PolyBench/GPU): C[i][j] += alpha a[i][k] a[j][k], thread (j = x, i = y) ----
# n = m = 64, block 32x8, grid 2x8: 128 warps (32 consecutive j, one i), 64 k each, so
# each reference on line 16 makes 128 x 64 = 8192 requests. a[j*m + k]: lanes 64 floats
# (256 bytes) apart, 32 sectors per request; a[i*m + k]: one address, 1 sector; c[i*n + j]
# is kept in a register between its stores (nvcc forwards the stored value). Before:
# 8192 x (32 + 1) = 270336 load sectors. The reduction over k is spread over a warp
# (redistribute): 64 x 64 = 4096 original threads, one warp each (grid 4096 / 8 = 512 of
# 32x8); lane l takes k = l, l + 32: 4096 x 2 = 8192 requests per reference, each 32
# consecutive floats of a 256-byte-aligned row, 4 sectors: 2 x 8192 x 4 = 65536.
line=$(grep -n 'c\[i \* n + j\] += alpha' "$PB/syrk.cu" | head -1 | cut -d: -f1)
expect 0 "" "$COALCHECK" fix "$PB/syrk.cu" --kernel syrk_kernel --grid 2,8 --block 32,8 \
  --arg alpha=1.5 --arg beta=1.2 --arg 'a=f32[n*m]:random:1' --arg 'c=f32[n*n]:random:2' \
  --arg n=64 --arg m=64 -o "$TMP/syrk" -q --json "$TMP/syrk.json"
jcheck "$TMP/syrk.json" 'd["verified"] and d["transform"] == "redistribute" and not d["bitwise_equal"] and d["grid"] == [512, 1, 1] and d["block"] == [32, 8, 1]'
[ "$(line_sectors "$TMP/syrk.json" before load "$line")" = 270336 ] || fail "syrk load before"
[ "$(line_sectors "$TMP/syrk.json" after load "$line")" = 65536 ] || fail "syrk load after"

# ---- syrk, PolyBench 4's triangle (j <= i) with one thread per row: a loop bound that
# depends on the thread. The triangular j loop lifts (verified, a candidate); the k sum
# spread over a warp reads fewer sectors and wins. 1-D launch: the permutation's refusal
# must not advise swapping threadIdx.x with a threadIdx.y the launch does not have.
expect 0 "" "$COALCHECK" fix "$PB/syrk.cu" --kernel syrk_tri_kernel --grid 1 --block 64 \
  --arg alpha=1.5 --arg beta=1.2 --arg 'a=f32[n*m]:random:1' --arg 'c=f32[n*n]:random:2' \
  --arg n=64 --arg m=64 -o "$TMP/tri" -q --json "$TMP/tri.json"
jcheck "$TMP/tri.json" 'd["verified"] and d["transform"] == "redistribute"'
jcheck "$TMP/tri.json" 'any(c["transform"] == "lift" and c["verified"] and "the loop over j" in c["what"] for c in d["source_candidates"])'
jcheck "$TMP/tri.json" 'all("threadIdx.y" not in r["reason"] and "1-D" in r["reason"] for r in d["refusals"] if r["transform"] == "permute")'

# ---- heat2d: i from threadIdx.x, j from threadIdx.y (a naive port), n = 128, block 32x8,
# grid 4x16. Store B[i*n + j], interior 1..126 in both: per j (126 values) 4 warps of i
# with 31, 32, 32, 31 active lanes 512 bytes apart: 504 requests, 126 x 126 = 15876
# sectors. x<->y: a warp is 32 consecutive j of one row (row start 512-byte aligned):
# j 1..31, 32..63, 64..95, 96..126 each within 4 sectors: 504 x 4 = 2016.
line=$(grep -n 'B\[i \* n + j\] = A\[i \* n + j\] + 0.125f' "$PB/heat2d.cu" | head -1 | cut -d: -f1)
cat >"$TMP/heat.launch" <<L
$PB/heat2d.cu --kernel heat_step --grid 4,16 --block 32,8
--arg 'A=f32[n*n]:random:1' --arg 'B=f32[n*n]:zero' --arg n=128
L
expect 0 "" "$COALCHECK" fix --launch "$TMP/heat.launch" -o "$TMP/heat" -q --json "$TMP/heat.json"
jcheck "$TMP/heat.json" 'd["verified"] and d["transform"] == "permute" and d["bitwise_equal"]'
[ "$(line_sectors "$TMP/heat.json" before store "$line")" = 15876 ] || fail "heat store before"
[ "$(line_sectors "$TMP/heat.json" after store "$line")" = 2016 ] || fail "heat store after"
dump_compare "$TMP/heat.launch" "$TMP/heat" B

# ---- jacobi2d kernel 1: every access coalesced (lanes 4 bytes apart), the excess only
# from A[i*n + j - 1] and A[i*n + j + 1] straddling sector boundaries: a refusal that says
# so and names the place, not "no transformation improves"
expect 11 "runJacobiCUDA_kernel1 is already coalesced" "$COALCHECK" fix "$PB/jacobi2d.cu" \
  --kernel runJacobiCUDA_kernel1 --grid 4,16 --block 32,8 --arg n=128 \
  --arg 'A=f32[n*n]:random:1' --arg 'B=f32[n*n]:zero' -o "$TMP/jac" -q
grep -q "32-byte sector boundary, the most at the load at .*jacobi2d.cu:12:5" "$TMP/err" ||
  fail "jacobi: the refusal does not name the misaligned load at jacobi2d.cu:12:5"
[ ! -e "$TMP/jac" ] || fail "jacobi: a refused fix wrote its folder"

# ---- a filter over each thread's row: constants declared together without a value
# (PolyBench's `DATA_TYPE c11, c12, ...;`) and set before the loop. Lifting j replays the
# constants in every thread. n = 256, one block of 256 (one thread per row i). Store
# B[i*n + j], j = 1..254: before, lanes 1024 bytes apart: 8 warps x 254 = 2032 requests,
# 32 sectors each, 65024. After, j is x from thread x 0 at j = 0 (warps start on a
# sector: rows of 1024 bytes), i is y: per row 8 warps of j = 32w..32w+31 (j = 0 and 255
# idle), each within bytes 128w..128w+127: 4 sectors, 32 a row, 256 rows: 8192 sectors in
# 2048 requests (9984 with thread x 0 at j = 1: 5 sectors a warp but the last).
cat >"$TMP/filt.cu" <<'CU'
__global__ void filter_rows(float *A, float *B, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float c1, c2, c3;
  c1 = 0.25f; c2 = 0.5f; c3 = 0.25f;
  if (i < n) {
    for (int j = 1; j < n - 1; j++) {
      B[i * n + j] = c1 * A[i * n + j - 1] + c2 * A[i * n + j] + c3 * A[i * n + j + 1];
    }
  }
}
CU
expect 0 "" "$COALCHECK" fix "$TMP/filt.cu" --grid 1 --block 256 --arg 'A=f32[n*n]:random:1' \
  --arg 'B=f32[n*n]:zero' --arg n=256 -o "$TMP/filt" -q --json "$TMP/filt.json"
jcheck "$TMP/filt.json" 'd["verified"] and d["transform"] == "lift" and d["bitwise_equal"] and "the loop over j" in d["what"]'
stores "$TMP/filt.json" before 2032 65024
stores "$TMP/filt.json" after 2048 8192

# ---- heat_rowstep: one thread per row, j = 1, 3, ..., 125 (j += 2), n = 128, one block of
# 128. Store B[i*n + j]: before, per iteration 4 warps with 31, 32, 32, 31 active rows
# 512 bytes apart: 63 x 4 = 252 requests, 63 x 126 = 7938 sectors. Lifting j with its
# step: thread t is j = 1 + 2t (63 threads: block 64 x 4, the rows i on y, grid 1 x 32);
# a warp is 32 consecutive t of one row, 8 bytes apart: t 0..31 bytes 4..255 of the row,
# t 32..62 bytes 260..503: 8 sectors each; 126 rows x 2 = 252 requests, 2016 sectors.
expect 0 "" "$COALCHECK" fix "$PB/heat2d.cu" --kernel heat_rowstep --grid 1 --block 128 \
  --arg 'A=f32[n*n]:random:1' --arg 'B=f32[n*n]:zero' --arg n=128 -o "$TMP/hrow" -q \
  --json "$TMP/hrow.json"
jcheck "$TMP/hrow.json" 'd["verified"] and d["transform"] == "lift" and d["bitwise_equal"] and "(1..125, step 2)" in d["what"] and d["block"] == [64, 4, 1] and d["grid"] == [1, 32, 1]'
stores "$TMP/hrow.json" before 252 7938
stores "$TMP/hrow.json" after 252 2016
grep -q '__cc_tx = (int)(blockIdx.x \* 64u + threadIdx.x) \* 2 + (1);' "$TMP/hrow/heat2d.cu" ||
  fail "heat_rowstep: x is not 1 + 2 t"

# ---- a backward sweep (adi's and back substitution's shape): i counts down from n - 2 and
# reads the row i + 1 it updated last; j is parallel and lifted, i stays a loop counting
# down (the outputs would differ otherwise). n = 32, 32 threads t (one warp), X holds 32
# planes of n x n. Store X[(t*n + i)*n + j]: before, lanes t 4096 bytes apart: 31 x 32 =
# 992 requests of 32 sectors, 31744. After, a warp is the 32 floats of one row (128
# bytes, 128-aligned): 32 t x 31 i = 992 requests of 4 sectors, 3968.
cat >"$TMP/back.cu" <<'CU'
__global__ void back_sweep(float *X, int n)
{
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = n - 2; i >= 0; i--)
    for (int j = 0; j < n; j++)
      X[(t * n + i) * n + j] = X[(t * n + i) * n + j] - 0.5f * X[(t * n + i + 1) * n + j];
}
CU
cat >"$TMP/back.launch" <<L
$TMP/back.cu --grid 1 --block 32 --arg 'X=f32[32*n*n]:random:1' --arg n=32
L
expect 0 "" "$COALCHECK" fix --launch "$TMP/back.launch" -o "$TMP/back" -q --json "$TMP/back.json"
jcheck "$TMP/back.json" 'd["verified"] and d["transform"] == "lift" and d["bitwise_equal"]'
stores "$TMP/back.json" before 992 31744
stores "$TMP/back.json" after 992 3968
dump_compare "$TMP/back.launch" "$TMP/back" X

# ---- honest refusals: adi's row sweep carries its recurrence (X[i1][i2-1]), named
expect 11 "adi.cu:12:5: the loop over i2 carries a dependence (X:" "$COALCHECK" fix \
  "$PB/adi.cu" --kernel adi_kernel1 --grid 1 --block 64 --arg 'A=f32[n*n]:random:1' \
  --arg 'B=f32[n*n]:const:4' --arg 'X=f32[n*n]:random:3' --arg n=64 -o "$TMP/adi" -q

# ---- a racy kernel (PolyBench's in-place trmm with one thread per element of B and the
# row on threadIdx.x): thread (i, j) reads B[k][j], k > i, which thread (k, j) writes. The
# permutation x<->y changes the order of the threads and so the result: that is the
# kernel's race, named with the array, not "a bug in coalcheck fix" (exit 11, not 70)
cat >"$TMP/trmm.cu" <<'CU'
__global__ void trmm_rows(float *A, float *B, int m, int n, float alpha)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < m && j < n) {
    for (int k = i + 1; k < m; k++)
      B[i * n + j] += A[k * m + i] * B[k * n + j];
    B[i * n + j] = alpha * B[i * n + j];
  }
}
CU
expect 11 "threads of kernel trmm_rows share an element (B:" "$COALCHECK" fix "$TMP/trmm.cu" \
  --grid 2,8 --block 32,8 --arg 'A=f32[m*m]:random:1' --arg 'B=f32[m*n]:random:2' \
  --arg m=64 --arg n=64 --arg alpha=1.5 -o "$TMP/trmm" -q
grep -q "permute: the permutation x<->y changes the results of trmm_rows .*a race" "$TMP/err" ||
  fail "trmm: the permutation's refusal does not name the race"
[ ! -e "$TMP/trmm" ] || fail "trmm: a refused fix wrote its folder"

finish
