#!/bin/bash
# `coalcheck fix --transform tile` (a transposition staged through a padded shared-memory
# tile, issue 10 item 3) on the naive transposes of examples/transpose and
# examples/permute and on examples/tile. Needs nvcc (the inputs are CUDA C) and libclang
# (the rewrite); skipped without nvcc.
#
# Expected figures, derived by hand (examples/transpose/transpose.cu, examples/permute/
# permute.cu and examples/tile/tile.cu's comments): after the tile every global request
# moves one row of a tile, 128 contiguous bytes (4 sectors; 8 for doubles), and every
# shared request takes its ideal wavefronts (the padded column is conflict-free):
# - transpose_naive, 1024^2, 32x8 threads: 1,179,648 sectors -> 262,144 (n^2/32 requests
#   each way x 4); 65,536 wavefronts, ideal 65,536; new launch grid 32x32, block 32x8.
# - transpose16, 1024^2, 16x16 threads: 655,360 -> 262,144; grid 32x32, block 32x8.
# - transpose_scale 3,240 -> 720 (264 wavefronts); transpose_f64 81,920 -> 32,768 (8,192);
#   to_col_major 3,456 -> 768 (224).
# Independently of the tool's own check, the original launch and DIR/K.launch are both
# run by the main command with --dump, and the dumps compared with cmp: bitwise equal.
. "$(dirname "$0")/data/common.bash"
[ -n "$(find_nvcc)" ] || { echo "skip: nvcc not found"; exit 77; }
EX="$COALCHECK_SRC/examples"

# shared wavefronts and their ideal in the fixed kernel of report $1: prints "W I"
wavefronts() {
  python3 - "$1" <<'EOF'
import json, sys
k = json.load(open(sys.argv[1]))["after"]["kernels"][0]
sh = [i for i in k["instructions"] if i["space"] == "shared"]
print(sum(i["wavefronts"] for i in sh), sum(i["ideal_wavefronts"] for i in sh))
EOF
}

# tile NAME LAUNCH BEFORE AFTER WAVEFRONTS GRID: fix, figures, the launch, the dumps
tile() {
  local name=$1 launch=$2 before=$3 after=$4 wf=$5 grid=$6 src
  expect 0 "" "$COALCHECK" fix --transform tile --launch "$launch" -o "$TMP/$name" -q \
    --json "$TMP/$name.json"
  src=$(basename "$(sed -n '/^[^#]/{p;q}' "$launch" | cut -d' ' -f1)")
  for f in "$src" fix.diff; do
    [ -s "$TMP/$name/$f" ] || fail "$name: $f not written"
  done
  jcheck "$TMP/$name.json" 'd["verified"] is True and d["chosen"]["transform"] == "tile" and '"
    d['before']['kernels'][0]['totals']['sectors'] == $before and
    d['chosen']['measured_sectors'] == $after and d['bitwise_equal'] is True"
  [ "$(wavefronts "$TMP/$name.json")" = "$wf $wf" ] || fail "$name: wavefronts $(wavefronts "$TMP/$name.json"), want $wf $wf"
  grep -q "^--grid $grid,1 --block 32,8,1\$" "$TMP/$name"/*.launch || fail "$name: launch geometry"
  grep -q '__shared__ .* __cc_tile\[32\]\[33\];' "$TMP/$name/$src" || fail "$name: no padded tile"
  dump_compare "$launch" "$TMP/$name" out
}

tile naive "$EX/transpose/naive.launch" 1179648 262144 65536 32,32
tile transpose16 "$EX/permute/transpose16.launch" 655360 262144 65536 32,32
tile scale "$EX/tile/scale.launch" 3240 720 264 3,2
tile f64 "$EX/tile/f64.launch" 81920 32768 8192 8,8
tile colmajor "$EX/tile/colmajor.launch" 3456 768 224 2,2

# the naive transpose's statements stay as written, inside the played thread's scope
grep -q '^  int x = blockIdx.x \* TILE_DIM + threadIdx.x;$' "$TMP/naive/transpose.cu" ||
  fail "naive: the body's first statement changed"

# --transform auto (the default) prefers the tile to the permutation for the naive
# transpose (262,144 sectors + 65,536 wavefronts against x<->y's 393,216 sectors)
expect 0 "" "$COALCHECK" fix --launch "$EX/transpose/naive.launch" -o "$TMP/auto" -q \
  --json "$TMP/auto.json"
jcheck "$TMP/auto.json" 'd["transform"] == "tile" and d["verified"] is True'

# ---- refusals: exit 11 with the place and the reason --------------------------------------
expect 11 "permute.cu:42:5: no global load has unit stride along the other thread dimension" \
  "$COALCHECK" fix --transform tile --launch "$EX/permute/stencil2d.launch" -o "$TMP/no1" -q
expect 11 "the kernel already uses shared memory" \
  "$COALCHECK" fix --transform tile --launch "$EX/transpose/tiled.launch" -o "$TMP/no2" -q
expect 11 "a warp shuffle" \
  "$COALCHECK" fix --transform tile --launch "$EX/permute/rowsum_shfl.launch" -o "$TMP/no3" -q
[ ! -e "$TMP/no1" ] && [ ! -e "$TMP/no2" ] && [ ! -e "$TMP/no3" ] || fail "a refusal wrote DIR"

finish
