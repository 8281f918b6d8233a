#!/bin/bash
# `coalcheck fix` on Parboil and CUDA samples shapes and common user kernels the fix engine
# was not written for (bench/unseen/parboil, bench/unseen/samples, README.md there): the
# chosen transformation, verification and sector or wavefront figures derived by hand
# below; refusals that name the construct. Needs nvcc (CUDA C inputs); skipped without it.
. "$(dirname "$0")/data/common.bash"
[ -n "$(find_nvcc)" ] || { echo "skip: nvcc not found"; exit 77; }
PB="$COALCHECK_SRC/bench/unseen/parboil"
SA="$COALCHECK_SRC/bench/unseen/samples"

# total FILE WHICH SPACE KEY: the sum of KEY over report WHICH's (before/after) SPACE
# instructions of fix JSON FILE
total() {
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sum(i[sys.argv[4]] for i in d[sys.argv[2]]['kernels'][0]['instructions'] if i['space'] == sys.argv[3]))" "$@"
}

# ---- particles with float3 members: struct {float3 pos; float3 vel; float mass;}, 28
# bytes, 4096 particles, blocks of 256. Every member access is a warp over 32 structures
# 28 bytes apart: warp w's bytes 896w + 4m .. 896w + 4m + 871 (m the member's word, 0..6),
# inside sectors 28w .. 28w + 27: 28 sectors a request. The soa layout splits pos and vel
# into components (pos.x at 0, ..., mass at 24): member m of warp w at 896w + 128m, 32
# floats, 4 sectors a request. nvcc makes 11 accesses a warp (1408 requests for 128 warps):
# 1408 x 28 = 39424 -> 1408 x 4 = 5632.
expect 0 "" "$COALCHECK" fix --launch "$SA/particles_vec.launch" -o "$TMP/pv" -q \
  --json "$TMP/pv.json"
jcheck "$TMP/pv.json" 'd["verified"] and d["transform"] == "soa" and d["bitwise_equal"]'
[ "$(total "$TMP/pv.json" before global requests)" = 1408 ] || fail "particles_vec requests"
[ "$(total "$TMP/pv.json" before global sectors)" = 39424 ] || fail "particles_vec before"
[ "$(total "$TMP/pv.json" after global sectors)" = 5632 ] || fail "particles_vec after"
grep -q '__cc_soa_p_pos_x(p, i)' "$TMP/pv/particles.cu" || fail "particles_vec: pos.x helper"
dump_compare "$SA/particles_vec.launch" "$TMP/pv" p

# ---- a 3-D stencil on z-fastest data with thread x on the array's x: 32^3, block 32x4x2,
# interior 30^3. Before, lanes are x, 32 x 32 floats (4 KiB) apart: one sector per active
# lane, 30 a request; 900 interior (y, z) rows x 8 accesses (7 loads, 1 store) = 7200
# requests, 216000 sectors. x <-> z: a warp is the 32 z of one (x, y) (a 128-byte row,
# 128-aligned), 30 active: 4 sectors; 7200 x 4 = 28800.
expect 0 "" "$COALCHECK" fix --launch "$SA/stencil3d_z.launch" -o "$TMP/s3" -q \
  --json "$TMP/s3.json"
jcheck "$TMP/s3.json" 'd["verified"] and d["transform"] == "permute" and d["bitwise_equal"]'
jcheck "$TMP/s3.json" 'd["before"]["kernels"][0]["totals"]["sectors"] == 216000 and d["after"]["kernels"][0]["totals"]["sectors"] == 28800'

# ---- convolutionSeparable's rows: block 16 x 4, so a warp is two rows ty, ty + 1 of
# s_Data[4][160]; 160 words = 0 mod 32, so lanes (tx, ty) and (tx, ty + 1) share a bank:
# every shared access (all index [threadIdx.y][threadIdx.x + c]) takes 2 wavefronts. Pad
# by blockDim.x = 16: rows of 176 words = 16 mod 32, the two rows in banks b and b + 16:
# one wavefront a request. Global sectors unchanged.
expect 0 "" "$COALCHECK" fix --launch "$SA/convolutionRows.launch" -o "$TMP/cr" -q \
  --json "$TMP/cr.json"
jcheck "$TMP/cr.json" 'd["verified"] and d["transform"] == "pad" and "padded by 16 elements" in d["what"]'
req=$(total "$TMP/cr.json" before shared requests)
[ "$(total "$TMP/cr.json" before shared wavefronts)" = $((2 * req)) ] || fail "rows: before"
[ "$(total "$TMP/cr.json" after shared wavefronts)" = "$req" ] || fail "rows: after"
jcheck "$TMP/cr.json" 'd["before"]["kernels"][0]["totals"]["sectors"] == d["after"]["kernels"][0]["totals"]["sectors"]'

# ---- lift aligned by the row: 64 threads t, each walking j = 0..63 of a row of n + 1 =
# 65 floats. Row t starts 65 t = t (mod 8) floats into a sector, so thread x 0 is j =
# -(t mod 8) = -s. Warps of a row: j -s..31-s (active 0..31-s: 4 sectors, starting s
# floats into the first), 32-s..63-s (4), 64-s..95-s (active 64-s..63: one sector when
# s > 0, no request when s = 0). 8 rows of s = 0: 8 sectors in 2 requests; 56 rows: 9
# in 3. Stores: 64 x 8 + 56 = 568 sectors in 128 + 56 = 184 requests (without the shift:
# 56 x 10 + 8 x 8 = 624 in 128). Before, lanes t 260 bytes apart: 64 j x 2 warps = 128
# requests of 32 sectors, 4096.
cat >"$TMP/rows65.cu" <<'CU'
__global__ void rows65(float *B, const float *A, int n)
{
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int j = 0; j < n; j++)
    B[t * (n + 1) + j] = 2.0f * A[t * (n + 1) + j];
}
CU
cat >"$TMP/rows65.launch" <<L
$TMP/rows65.cu --grid 2 --block 32 --arg 'B=f32[64*65]:zero' --arg 'A=f32[64*65]:random:1'
--arg n=64
L
expect 0 "" "$COALCHECK" fix --launch "$TMP/rows65.launch" --transform lift -o "$TMP/r65" -q \
  --json "$TMP/r65.json"
jcheck "$TMP/r65.json" 'd["verified"] and d["bitwise_equal"] and "shifted by its row" in d["what"] and d["block"] == [96, 2, 1]'
stores() {
  jcheck "$1" "sum(i['requests'] for i in d['$2']['kernels'][0]['instructions'] if i['op'] == 'store' and i['space'] == 'global') == $3"
  jcheck "$1" "sum(i['sectors'] for i in d['$2']['kernels'][0]['instructions'] if i['op'] == 'store' and i['space'] == 'global') == $4"
}
stores "$TMP/r65.json" before 128 4096
stores "$TMP/r65.json" after 184 568
dump_compare "$TMP/rows65.launch" "$TMP/r65" B

# ---- a stepped row loop, j = 2, 4, ..., 254 over rows of 256 floats (1 KiB, aligned), 64
# threads t. Before, lanes t 1 KiB apart: 127 j x 2 warps = 254 requests of 32 sectors,
# 8128. Lifted, thread x is j = 2 x + origin; from j = 2 warps would hold j = 2 + 64w ..
# 64 + 64w (bytes 8 + 256w .. 259 + 256w: 9 sectors; the last, j 194..254, 8): 35 a row.
# The origin 0 (2 - 2 d = 0 mod 8, d = 1; thread 0 idle) gives warps j = 64w .. 64w + 62,
# bytes 256w .. 256w + 251: 8 sectors, 4 warps a row: 64 x 4 = 256 requests, 2048.
cat >"$TMP/step2.cu" <<'CU'
__global__ void step2(float *B, const float *A, int n)
{
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int j = 2; j < n; j += 2)
    B[t * n + j] = A[t * n + j] + 1.0f;
}
CU
expect 0 "" "$COALCHECK" fix "$TMP/step2.cu" --grid 2 --block 32 --arg 'B=f32[64*256]:zero' \
  --arg 'A=f32[64*256]:random:1' --arg n=256 --transform lift -o "$TMP/st2" -q --json "$TMP/st2.json"
jcheck "$TMP/st2.json" 'd["verified"] and "(2..254, step 2, thread x 0 at 0" in d["what"]'
stores "$TMP/st2.json" before 254 8128
stores "$TMP/st2.json" after 256 2048

# ---- lbm's collision over a cell-major array (c * 20 + e): the density rho is a sum that
# redistribute spreads over lanes, then used in f + w (rho / 19 - f), which cancels. The
# bound's magnitudes come from the magnitude kernel (sub -> add), so the reassociated
# candidates verify instead of failing as a bug (exit 70). Before: lanes 80 bytes apart,
# one sector each: 32 sectors in every request.
cat >"$TMP/lbm.launch" <<L
$PB/lbm.cu --kernel lbm_aos --grid 4 --block 256
--arg 'src=f32[20*1024]:random:1' --arg 'dst=f32[20*1024]:zero' --arg ncells=1024 --arg omega=1.7
L
expect 0 "" "$COALCHECK" fix --launch "$TMP/lbm.launch" -o "$TMP/lbm" -q --json "$TMP/lbm.json"
jcheck "$TMP/lbm.json" 'd["verified"] and any(c["transform"] == "redistribute" and c["verified"] for c in d["source_candidates"])'
jcheck "$TMP/lbm.json" 'd["before"]["kernels"][0]["totals"]["sectors"] == 32 * sum(i["requests"] for i in d["before"]["kernels"][0]["instructions"] if i["space"] == "global")'

# ---- a data-dependent address (Parboil histo's naive kernel: one global atomic per
# element into bin input[i] & 255): no thread order helps; the refusal says why
expect 11 "its worst access is the atomic at line 25, whose lanes touch data-dependent elements" \
  "$COALCHECK" fix --launch "$PB/histo_global.launch" -o "$TMP/hg" -q
[ ! -e "$TMP/hg" ] || fail "histo_global: a refused fix wrote its folder"

# ---- a template kernel named as in the source (reduce5<256>; the demangler spells it
# reduce5<256u>): found, and already coalesced
expect 11 "reduce5<256> is already coalesced" "$COALCHECK" fix --launch "$SA/reduce5.launch" \
  -o "$TMP/r5" -q

finish
