#!/bin/bash
# --html (src/view): filtering the views by a source line, and the model switch of the
# grid, block, warp and operation views, in headless Chromium (tests/e2e/data/
# html_line_arch.py). Skipped without nvcc; without chromium or playwright, skipped after
# the checks that need no browser.
#
# The kernel (lines.cu below): the naive transpose of a 64 x 64 float matrix with its load
# and store on lines of their own, and a copy into every other float of `wide` (line 7);
# grid 2 x 8 = 16 CTAs of 32 x 8 threads = 8 warps; a warp is 32 x at one y. Hand
# derivation, per warp and then per CTA (8 warps, every CTA alike); "excess" = bytes moved
# beyond the ideal 32-byte sectors / 32 (docs/views.md):
# - line 5, in[y*n + x]: 32 consecutive floats from (y*64 + 32*bx)*4, a multiple of 128.
#   sm_90: 4 sectors, ideal 4, excess 0. cc1.0: each half-warp's 16 words fill a 64-byte
#   segment in sequence: coalesced, 2 requests, 2 transactions of 64 bytes, excess 0.
#   cc1.2: per half-warp the 128-byte segment, its bytes in one half: shrunk to 64: the
#   same 2 x 64. cc2.0 (a load, cached in L1): 1 request, one 128-byte line. Per CTA: 8
#   executions, excess 0 under all four.
# - line 6, out[x*n + y]: lanes 4n = 256 bytes apart. sm_90: 1 request, 32 sectors, 1,024
#   bytes, ideal 4 (128 unique bytes), excess 28. cc1.0: 2 requests (half-warps), one
#   32-byte transaction per lane: 32 transactions, 1,024 bytes, excess 28. cc1.2: 2
#   requests, each lane alone in its 128-byte segment, shrunk to 32: the same 32 x 32.
#   cc2.0 (a store: 32-byte L2 segments): 1 request, 32 x 32. Per CTA: 8 executions,
#   excess 224 under all four.
# - line 7, wide[2*(y*n + x)]: lanes 8 bytes apart from a multiple of 256: bytes span 252
#   -> 8 sectors, ideal 4. sm_90: 256 bytes, excess 4. cc1.0: not in sequence (lane k
#   not at segment + 4k): 32 transactions of 32 bytes, excess (1,024 - 128) / 32 = 28.
#   cc1.2: each half-warp's 124 bytes in one 128-byte segment, both halves used: 2 x 128
#   = 256, excess 4. cc2.0: 8 segments of 32 = 256, excess 4. Per CTA: 8 executions,
#   excess 32 (sm_90, cc1.2, cc2.0) or 224 (cc1.0).
# - unfiltered per CTA: 24 executions; excess 0 + 224 + 32 = 256 (sm_90, cc1.2, cc2.0),
#   0 + 224 + 224 = 448 (cc1.0); requests 24 (sm_90), 48 (cc1.0).
# - the whole kernel (128 warps) for the JSON: the line-6 store under cc1.0: 256 requests,
#   4,096 transactions, 131,072 bytes; under sm_90: 128, 4,096, 131,072.
# Shared memory: the bundled tiled transpose (examples/transpose/tiled.launch) at n = 64,
# grid 2 x 2: its column read tile[tx][ty + j] puts lane tx on word 32 tx + c. sm_90 (32
# banks of 4 bytes): bank c for all 32 lanes, 32 distinct words: 1 request, 32
# wavefronts, one bank drawn with 32 lanes. cc1.0 (16 banks, per half-warp): bank c % 16
# for the 16 lanes of each half-warp, 16 words each: 2 requests, 16 + 16 = 32 wavefronts,
# two banks drawn (one per half-warp) with 16 lanes each. 2 x 2 CTAs x 8 warps x 4 rows =
# 128 executions.
. "$(dirname "$0")/data/common.bash"
[ -n "$(find_nvcc)" ] || { echo "skip: nvcc not found"; exit 77; }

cat >"$TMP/lines.cu" <<'CU'
__global__ void naive(float *out, const float *in, float *wide, int n)
{
  int x = blockIdx.x * 32 + threadIdx.x;
  int y = blockIdx.y * 8 + threadIdx.y;
  float v = in[y * n + x];
  out[x * n + y] = v;
  wide[2 * (y * n + x)] = v;
}
CU
expect 0 "" "$COALCHECK" "$TMP/lines.cu" --grid 2,8 --block 32,8 --arg 'out=f32[n*n]:zero' \
  --arg 'in=f32[n*n]:iota' --arg 'wide=f32[2*n*n]:zero' --arg n=64 --arch cc1.0,cc1.2,cc2.0,sm_90 \
  --html "$TMP/l.html" --json "$TMP/l.json" -q
[ -s "$TMP/l.html" ] || { echo "FAIL: no page"; exit 1; }
expect 0 "" "$COALCHECK" --launch "$COALCHECK_SRC/examples/transpose/tiled.launch" --arg n=64 \
  --grid 2,2 --arch cc1.0,sm_90 --html "$TMP/t.html" --json "$TMP/t.json" -q
# the JSON's figures of the line-6 store, derived above
store='[i for i in d["kernels"][0]["instructions"] if i["source"]["line"] == 6][0]["models"]'
jcheck "$TMP/l.json" "$store[\"cc1.0\"][\"requests\"] == 256 and $store[\"cc1.0\"][\"transactions\"] == 4096 and $store[\"cc1.0\"][\"bytes_transferred\"] == 131072"
jcheck "$TMP/l.json" "$store[\"sm_90\"][\"requests\"] == 128 and $store[\"sm_90\"][\"transactions\"] == 4096"

need_browser
timeout 90 python3 "$DATA/html_line_arch.py" "$TMP/l.html" "$TMP/l.json" "$CHROMIUM" \
  "$TMP/t.html" "$TMP/t.json" ||
  fail "browser checks"
[ "$fails" -eq 0 ] || exit 1
echo "ok"
