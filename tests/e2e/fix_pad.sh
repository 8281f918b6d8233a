#!/bin/bash
# `coalcheck fix --transform pad`: the rows of a __shared__ array padded against bank
# conflicts. Needs nvcc and libclang; skipped without nvcc.
#
# Expected figures, derived by hand from examples/transpose/transpose.cu's comment (n =
# 1024, 32x32 tiles, 32x8 threads, 1024 CTAs, 4 rows per thread):
# - transpose_tiled: the shared store tile[ty+j][tx] writes 32 consecutive words of a row,
#   1 wavefront per request; the load tile[tx][ty+j] reads a column of rows 32 words (128
#   bytes) long: all 32 lanes in one bank, 32 wavefronts per request. Requests: 1024 CTAs
#   x 8 warps x 4 rows = 32,768 of each, so 32,768 + 32 x 32,768 = 1,081,344 wavefronts.
#   Padded to [32][33], a column's word c*33 + r lies in bank (c + r) % 32: 32 banks, one
#   wavefront: 65,536 in all, the ideal. The global sectors stay 262,144 (4 per request,
#   65,536 requests).
# - transpose_padded: already [32][33], conflict-free: refused.
. "$(dirname "$0")/data/common.bash"
[ -n "$(find_nvcc)" ] || { echo "skip: nvcc not found"; exit 77; }
EX="$COALCHECK_SRC/examples"

expect 0 "" "$COALCHECK" fix --transform pad --launch "$EX/transpose/tiled.launch" -o "$TMP/tiled" \
  -q --json "$TMP/tiled.json"
jcheck "$TMP/tiled.json" 'd["transform"] == "pad" and d["bitwise_equal"] is True'
jcheck "$TMP/tiled.json" 'd["before"]["kernels"][0]["totals"]["wavefronts"] == 1081344 and d["after"]["kernels"][0]["totals"]["wavefronts"] == 65536'
jcheck "$TMP/tiled.json" 'd["before"]["kernels"][0]["totals"]["sectors"] == 262144 == d["after"]["kernels"][0]["totals"]["sectors"]'
# the diff is the declaration alone, its last dimension padded by one element
python3 - "$TMP/tiled/fix.diff" <<'PY' || fail "the diff is not the one padded declaration"
import sys
lines = open(sys.argv[1]).read().splitlines()
minus = [l for l in lines if l.startswith('-') and not l.startswith('---')]
plus = [l for l in lines if l.startswith('+') and not l.startswith('+++')]
sys.exit(0 if minus == ["-  __shared__ float tile[TILE_DIM][TILE_DIM];"] and
              plus == ["+  __shared__ float tile[TILE_DIM][TILE_DIM + 1];"] else 1)
PY
dump_compare "$EX/transpose/tiled.launch" "$TMP/tiled" out
# auto picks it too (no other transformation applies to the tiled transpose)
expect 0 "" "$COALCHECK" fix --launch "$EX/transpose/tiled.launch" -o "$TMP/auto" -q \
  --json "$TMP/auto.json"
jcheck "$TMP/auto.json" 'd["transform"] == "pad"'

# refusals: no conflict (the frame says so first); a pointer into the array (a flattened
# index through it would see the new row length)
expect 11 "transpose_padded is already coalesced" "$COALCHECK" fix --transform pad \
  --launch "$EX/transpose/padded.launch" -o "$TMP/padded" -q
cat > "$TMP/flat.cu" <<'CU'
__global__ void flat(float *out, const float *in, int n)
{
  __shared__ float t[32][32];
  float *p = &t[0][0];
  t[threadIdx.y][threadIdx.x] = in[threadIdx.y * 32 + threadIdx.x];
  __syncthreads();
  out[threadIdx.y * 32 + threadIdx.x] = p[threadIdx.x * 32 + threadIdx.y];
}
CU
expect 11 "flat.cu:4:15: t is used other than fully subscripted" "$COALCHECK" fix --transform pad \
  "$TMP/flat.cu" --grid 1 --block 32,32 --arg 'out=f32[1024]:zero' --arg 'in=f32[1024]:random' \
  --arg n=32 -o "$TMP/flat" -q
[ ! -e "$TMP/flat" ] || fail "a refused pad wrote its folder"

# a dimension written as an expression keeps its value: `[16 << 1]` -> `[(16 << 1) + 1]`
# (`16 << 1 + 1` would be 64); the column read t[x][y] is 32-way before, conflict-free after
cat > "$TMP/expr.cu" <<'CU'
__global__ void colread(float *out, const float *in)
{
  __shared__ float t[32][16 << 1];
  t[threadIdx.y][threadIdx.x] = in[threadIdx.y * 32 + threadIdx.x];
  __syncthreads();
  out[threadIdx.y * 32 + threadIdx.x] = t[threadIdx.x][threadIdx.y];
}
CU
expect 0 "" "$COALCHECK" fix --transform pad "$TMP/expr.cu" --grid 1 --block 32,32 \
  --arg 'out=f32[1024]:zero' --arg 'in=f32[1024]:random' -o "$TMP/expr" -q
grep -qF '__shared__ float t[32][(16 << 1) + 1];' "$TMP/expr/expr.cu" ||
  fail "expr.cu: the padded dimension is not '(16 << 1) + 1'"
finish
