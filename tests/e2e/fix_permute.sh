#!/bin/bash
# `coalcheck fix` (thread-geometry permutation, CGO 2015 Sec. 4.2) on the examples of
# examples/permute, examples/cell3d, examples/gaussian and the naive transpose. Needs nvcc
# (the inputs are CUDA C) and libclang (the rewrite); skipped without nvcc.
#
# Expected figures, derived by hand in examples/permute/permute.cu's comment:
# - copy3d_zfast, 64^3 floats, 8x8x8 threads: load and store 8192 requests each, 32
#   sectors per request before (262,144 per instruction), 4 after x<->z with the block
#   reshaped to 64x8x1 (32,768).
# - stencil2d_yfast, 512^2, 16x16 threads: the store out[r*n+c] 8192 requests, 130,560
#   sectors before, 32,640 after x<->y.
# Independently of the tool's own check, the original launch and DIR/K.launch are both
# run by the main command with --dump, and the dumps compared with cmp: bitwise equal.
. "$(dirname "$0")/data/common.bash"
[ -n "$(find_nvcc)" ] || { echo "skip: nvcc not found"; exit 77; }
EX="$COALCHECK_SRC/examples"

# diff_only DIFF REGEX: the unified diff's removed and added lines pair up, each pair equal
# once every match of REGEX has its last character (the component) blanked
diff_only() {
  python3 - "$1" "$2" <<'EOF'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
minus = [l[1:] for l in lines if l.startswith('-') and not l.startswith('---')]
plus = [l[1:] for l in lines if l.startswith('+') and not l.startswith('+++')]
norm = lambda s: re.sub(sys.argv[2], lambda m: m.group(0)[:-1] + '?', s)
sys.exit(0 if minus and len(minus) == len(plus) and all(norm(a) == norm(b) for a, b in zip(minus, plus)) else 1)
EOF
}

# ---- copy3d: fastest index on threadIdx.z -> x<->z ---------------------------------------
expect 0 "" "$COALCHECK" fix --launch "$EX/permute/copy3d.launch" -o "$TMP/copy3d" -q \
  --json "$TMP/copy3d.json"
for f in permute.cu copy3d_zfast.launch fix.diff; do
  [ -s "$TMP/copy3d/$f" ] || fail "copy3d: $f not written"
done
jcheck "$TMP/copy3d.json" 'd["verified"] is True and d["chosen"]["permutation"] == "x<->z"'
line=$(grep -n 'out\[cell\] = ' "$EX/permute/permute.cu" | cut -d: -f1)
[ "$(line_sectors "$TMP/copy3d.json" before load "$line")" = 262144 ] || fail "copy3d load before"
[ "$(line_sectors "$TMP/copy3d.json" after load "$line")" = 32768 ] || fail "copy3d load after"
[ "$(line_sectors "$TMP/copy3d.json" before store "$line")" = 262144 ] || fail "copy3d store before"
[ "$(line_sectors "$TMP/copy3d.json" after store "$line")" = 32768 ] || fail "copy3d store after"
# the kernel works on its global index alone, so the block is reshaped too: extents
# (64, 64, 64) after x<->z, 512 threads: x 64, y 8, z 1; grid (1, 8, 64)
grep -q '^--grid 1,8,64 --block 64,8,1$' "$TMP/copy3d/copy3d_zfast.launch" ||
  fail "copy3d: launch geometry"
# only the builtin components changed: the diff's removed and added lines differ there alone
diff_only "$TMP/copy3d/fix.diff" '(threadIdx|blockIdx|blockDim|gridDim)\.[xyz]' ||
  fail "copy3d: the diff changes more than builtin components"
dump_compare "$EX/permute/copy3d.launch" "$TMP/copy3d" out

# ---- stencil2d: fastest index on threadIdx.y -> x<->y, by both strategies -----------------
for s in model empirical; do
  expect 0 "" "$COALCHECK" fix --launch "$EX/permute/stencil2d.launch" -o "$TMP/st-$s" -q \
    --strategy $s --json "$TMP/st-$s.json"
  jcheck "$TMP/st-$s.json" 'd["verified"] is True and d["chosen"]["permutation"] == "x<->y"'
  line=$(grep -n 'out\[r \* n + c\] = 0.25f' "$EX/permute/permute.cu" | cut -d: -f1)
  [ "$(line_sectors "$TMP/st-$s.json" before store "$line")" = 130560 ] || fail "stencil store before ($s)"
  [ "$(line_sectors "$TMP/st-$s.json" after store "$line")" = 32640 ] || fail "stencil store after ($s)"
done
jcheck "$TMP/st-empirical.json" 'all(c["measured_sectors"] is not None for c in d["candidates"] if c["legal"])'
dump_compare "$EX/permute/stencil2d.launch" "$TMP/st-model" out

# ---- PTX in, PTX out: the same kernel compiled by nvcc, rewritten in its special registers ---
"$(find_nvcc)" -ptx -lineinfo -arch=sm_90 -o "$TMP/permute.ptx" "$EX/permute/permute.cu" ||
  fail "nvcc -ptx failed"
expect 0 "" "$COALCHECK" fix "$TMP/permute.ptx" --kernel copy3d_zfast --grid 8,8,8 \
  --block 8,8,8 --arg 'out=f32[nx*ny*nz]:zero' --arg 'in=f32[nx*ny*nz]:random:22' \
  --arg nx=64 --arg ny=64 --arg nz=64 -o "$TMP/ptx" -q --json "$TMP/ptx.json"
jcheck "$TMP/ptx.json" 'd["verified"] is True and d["chosen"]["permutation"] == "x<->z"'
[ -s "$TMP/ptx/permute.ptx" ] || fail "ptx: permute.ptx not written"
diff_only "$TMP/ptx/fix.diff" '%(n?tid|n?ctaid)\.[xyz]' ||
  fail "ptx: the diff changes more than special registers"
"$COALCHECK" --launch "$TMP/ptx/copy3d_zfast.launch" -q --dump "out=$TMP/ptx-out.bin" >/dev/null ||
  fail "the fixed PTX launch did not run"
"$COALCHECK" --launch "$EX/permute/copy3d.launch" -q --dump "out=$TMP/cu-out.bin" >/dev/null
cmp -s "$TMP/ptx-out.bin" "$TMP/cu-out.bin" || fail "ptx: output differs from the original's"

# ---- gaussian fan2 (Rodinia): x<->y ---------------------------------------------------------
expect 0 "" "$COALCHECK" fix --launch "$EX/gaussian/fan2.launch" -o "$TMP/fan2" -q \
  --json "$TMP/fan2.json"
jcheck "$TMP/fan2.json" 'd["verified"] is True and d["chosen"]["permutation"] == "x<->y"'
dump_compare "$EX/gaussian/fan2.launch" "$TMP/fan2" a_cuda

# ---- refusals: exit 11, a reason, nothing written ---------------------------------------------
line=$(grep -n '__shfl_down_sync' "$EX/permute/permute.cu" | cut -d: -f1)
expect 11 "permute.cu:$line" "$COALCHECK" fix --launch "$EX/permute/rowsum_shfl.launch" -o "$TMP/shfl" -q --transform permute
grep -q "__shfl_down_sync" "$TMP/err" || fail "shfl refusal does not name the shuffle"
[ ! -e "$TMP/shfl" ] || fail "a refused fix wrote its folder"
# a lane id computed from threadIdx in the source (no warp instruction in the PTX): each
# thread keeps its value, so the fix goes ahead (verified bitwise), and the summary notes
# the line and column the source scan (libclang) found
cat > "$TMP/lane.cu" <<'EOF'
__global__ void lane_leader(float *out, const float *in, int n)
{
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  int c = blockIdx.y * blockDim.y + threadIdx.y;
  float v = in[r * n + c];
  out[r * n + c] = (threadIdx.x % 32 == 0) ? v : 2.0f * v;
}
EOF
expect 0 "" "$COALCHECK" fix "$TMP/lane.cu" --grid 4,16 --block 32,8 \
  --arg 'out=f32[n*n]:zero' --arg 'in=f32[n*n]:random' --arg n=128 -o "$TMP/lane" -q
grep -q "note: .*lane.cu:6:" "$TMP/out" || fail "lane id: no note naming lane.cu:6"
# (the permutation alone: --transform auto stages both transposes through a shared tile,
# tests/e2e/fix_tile.sh)
expect 11 "shared memory" "$COALCHECK" fix --transform permute \
  --launch "$EX/permute/transpose16.launch" -o "$TMP/tr" -q --json "$TMP/tr.json"
[ ! -e "$TMP/tr" ] || fail "the transpose's refusal wrote its folder"
jcheck "$TMP/tr.json" 'd["verified"] is False and d["chosen"] is None and "tiling" in d["reason"]'
# the naive transpose of examples/transpose (32x8 threads, TILE_DIM 32 fixed in the code):
# x<->y makes the block 8x32, a warp 8 x by 4 y: the store 4 sectors per request (was 32),
# the load 8 (was 4): 12 sectors per warp instead of 36, verified; the load stays strided
# and the summary says so, pointing at tiling
expect 0 "" "$COALCHECK" fix --transform permute --launch "$EX/transpose/naive.launch" \
  -o "$TMP/naive" -q --json "$TMP/naive.json"
jcheck "$TMP/naive.json" 'd["chosen"]["block"] == [8, 32, 1] and "tiling" in d["remaining"]'
line=$(grep -n "out\[x \* n + y\] = in" "$EX/transpose/transpose.cu" | head -1 | cut -d: -f1)
[ "$(line_sectors "$TMP/naive.json" after load "$line")" = $((32768 * 8)) ] || fail "naive load after"
[ "$(line_sectors "$TMP/naive.json" after store "$line")" = $((32768 * 4)) ] || fail "naive store after"
expect 11 "already coalesced" "$COALCHECK" fix --launch "$EX/cell3d/xfast.launch" -o "$TMP/xf" -q
# the tiled transpose's only excess is its 32-way shared column read: swapping x and y cuts
# the bank conflicts but doubles the global sectors (4 -> 8 per request); refused
expect 11 "raises the global sectors of transpose_tiled from 262144 to 524288" \
  "$COALCHECK" fix --launch "$EX/transpose/tiled.launch" -o "$TMP/tiled" -q --transform permute
# an array of structures: the permutation's reason is the report's own advice for the worst
# access (--transform auto fixes it by the layout change: tests/e2e/fix_soa.sh)
expect 11 "AoS -> SoA" "$COALCHECK" fix --launch "$EX/aos_soa/aos.launch" -o "$TMP/aos" -q --transform permute
[ ! -e "$TMP/xf" ] || fail "an already coalesced kernel got a folder"

# ---- -o DIR: a non-empty folder is refused without --force, replaced with it -------------------
mkdir "$TMP/full" && echo keep >"$TMP/full/mine.txt"
expect 2 "--force" "$COALCHECK" fix --launch "$EX/permute/copy3d.launch" -o "$TMP/full" -q
[ -f "$TMP/full/mine.txt" ] || fail "a refused -o lost the user's file"
expect 0 "" "$COALCHECK" fix --launch "$EX/permute/copy3d.launch" -o "$TMP/full" -q --force
[ ! -e "$TMP/full/mine.txt" ] && [ -s "$TMP/full/permute.cu" ] || fail "--force did not replace the folder"
expect 2 "missing -o" "$COALCHECK" fix --launch "$EX/permute/copy3d.launch" -q
# missing parent folders of -o are made (only for a verified fix)
expect 0 "" "$COALCHECK" fix --launch "$EX/permute/copy3d.launch" -o "$TMP/new/a/b" -q
[ -s "$TMP/new/a/b/copy3d_zfast.launch" ] || fail "-o with missing parents"
# the folder that holds the input is never replaced, --force or not
mkdir "$TMP/src" && cp "$EX/permute/permute.cu" "$EX/permute/copy3d.launch" "$TMP/src/"
expect 2 "holds $TMP/src/permute.cu" "$COALCHECK" fix --launch "$TMP/src/copy3d.launch" \
  -o "$TMP/src" --force -q
[ -f "$TMP/src/permute.cu" ] || fail "fix -o on the input's folder lost the input"

# ---- --transform: the frame of the other transformations (issue 10) --------------------------
expect 2 "expected auto, permute, lift, redistribute, tile, soa or pad" "$COALCHECK" fix \
  --launch "$EX/permute/copy3d.launch" -o "$TMP/bogus" -q --transform bogus
# the source transformations need CUDA C: on PTX input each is refused with that reason
expect 11 "lift: needs the kernel's CUDA C source" "$COALCHECK" fix "$TMP/permute.ptx" \
  --kernel transpose16 --grid 4,4 --block 16,16 --arg 'out=f32[64*64]:zero' \
  --arg 'in=f32[64*64]:random' --arg n=64 -o "$TMP/ptx-lift" -q --transform lift
# auto on a kernel nothing fixes in PTX: one refusal per transformation, in the JSON too
"$COALCHECK" fix "$TMP/permute.ptx" --kernel transpose16 --grid 4,4 --block 16,16 \
  --arg 'out=f32[64*64]:zero' --arg 'in=f32[64*64]:random' --arg n=64 -o "$TMP/ptx-auto" -q \
  --json "$TMP/auto.json" 2>"$TMP/auto.err"
[ $? -eq 11 ] || fail "auto on the PTX transpose16: expected exit 11"
jcheck "$TMP/auto.json" 'd["fix_schema_version"] == 2 and d["requested_transform"] == "auto" and d["transform"] is None and [r["transform"] for r in d["refusals"]] == ["permute", "lift", "redistribute", "tile", "soa", "pad"]'
[ ! -e "$TMP/ptx-auto" ] || fail "a refused auto fix wrote its folder"

finish
