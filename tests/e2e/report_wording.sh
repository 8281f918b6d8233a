#!/usr/bin/env bash
# What the text report says about the bundled examples (issue 13): the footprint stride
# (CGO 2015 allStr) worded so that it cannot read as a contradiction of the verdict, an
# efficiency never above 100%, and bank-conflict advice that names the static __shared__
# array and its padded declaration. Skips without nvcc.
. "$(dirname "$0")/data/common.bash"
[ -n "$(find_nvcc)" ] || { echo "skip: nvcc not found"; exit 77; }
EX="$COALCHECK_SRC/examples"

# naive transpose, store out[x * n + y]: lanes 4096 bytes apart (uncoalesced), yet all
# executions together write every float of out: allStr 4 = the float size, so a remapping
# of threads coalesces it (CGO 2015 Algorithm 1, lines 39-42)
expect 0 "" "$COALCHECK" --launch "$EX/transpose/naive.launch"
grep -qF "stride  min 4096, max 4096, avg 4096.0 bytes; footprint stride 4 bytes: contiguous, a" \
  "$TMP/out" || fail "naive transpose: store's footprint line: $(grep -m1 'stride  ' "$TMP/out")"
grep -qF "all coalescable" "$TMP/out" && fail "naive transpose: 'all coalescable' is still printed"

# strided copy, in[2 i]: every other float is never read: allStr 8 > 4: no remapping helps
expect 0 "" "$COALCHECK" --launch "$EX/strided_copy/stride2.launch"
grep -qF "footprint stride 8 bytes: gaps remain, no remapping of" "$TMP/out" ||
  fail "stride 2: load's footprint line"

# gesummv, x[j]: 32 lanes read one float: 4 distinct bytes of the 32 moved: 12.5%, never
# 400% (bytes requested / moved); no row of any example above 100%
expect 0 "" "$COALCHECK" --launch "$EX/gesummv/rows.launch"
# (the column after eff is the cache model's DRAM bytes)
[ "$(grep -Ec 'gesummv.cu:26 .* 1\.00 +1\.00 +12\.5% +[0-9.KMGT]+  coalesced' "$TMP/out")" = 4 ] ||
  fail "gesummv x[j]: not 4 rows at 12.5%: $(grep 'gesummv.cu:26' "$TMP/out")"
above1='"efficiency":[[:space:]]*([2-9]|1\.[0-9]*[1-9]|[1-9][0-9])'
for l in "$EX"/*/*.launch; do
  "$COALCHECK" --launch "$l" --json - >"$TMP/all.json" 2>"$TMP/err" || fail "$l failed"
  grep -Eq "$above1" "$TMP/all.json" &&
    fail "$l: an efficiency above 1: $(grep -Em1 "$above1" "$TMP/all.json")"
done

# tiled transpose, tile[threadIdx.x][threadIdx.y + j] of __shared__ float tile[32][32]:
# lanes 128 bytes = 32 words apart, one bank: 32-way; pad rows by one float: tile[32][33]
expect 0 "" "$COALCHECK" --launch "$EX/transpose/tiled.launch" --json -
[ "$(grep -c "column of 'tile' whose rows are 32 floats long" "$TMP/out")" = 4 ] ||
  fail "tiled transpose: the 4 column reads do not name 'tile'"
[ "$(grep -c "tile\[32\]\[33\] instead of tile\[32\]\[32\]" "$TMP/out")" = 4 ] ||
  fail "tiled transpose: no padded declaration"
# the padded one has no conflict, so no advice
expect 0 "" "$COALCHECK" --launch "$EX/transpose/padded.launch"
grep -q "advice" "$TMP/out" && fail "padded transpose: advice given: $(grep -m1 advice "$TMP/out")"

# histogram, atomicAdd(&local[data[i]], 1u): lanes at data-dependent bins: no row padding
expect 0 "" "$COALCHECK" --launch "$EX/histogram/shared.launch" --json -
grep -qF "bank conflict in 'local'" "$TMP/out" || fail "histogram: array not named"
grep -qF "padding rows does not remove" "$TMP/out" || fail "histogram: padding not ruled out"
grep -qF "[32][33]" "$TMP/out" && fail "histogram: a [32][33] padding advice for a 1-D array"
finish
