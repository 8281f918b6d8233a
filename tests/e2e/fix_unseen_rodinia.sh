#!/bin/bash
# Analysis and `coalcheck fix --transform auto` on Rodinia/SHOC-style kernels the fix
# engine was not developed on (bench/unseen/rodinia, bench/results/unseen-rodinia-*.md).
# Needs nvcc (CUDA C inputs); skipped without it. Each block names the bug it guards.
. "$(dirname "$0")/data/common.bash"
[ -n "$(find_nvcc)" ] || { echo "skip: nvcc not found"; exit 77; }
R="$COALCHECK_SRC/bench/unseen/rodinia"

# the figures of instructions of SPACE and OP on source line LINE of the report in JSON
# (WHICH: a fix report's "before"/"after", or "" for an analysis report): prints
# "requests sectors wavefronts" summed over them
line_figures() {
  python3 - "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); which, space, op, line = sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
k = (d[which] if which else d)["kernels"][0]
ins = [i for i in k["instructions"] if i["space"] == space and i["op"] == op and i["source"]["line"] == line]
print(sum(i["requests"] for i in ins), sum(i["sectors"] for i in ins), sum(i.get("wavefronts", 0) for i in ins))
PY
}

# ---- nw (needle_cuda_shared_1): nvcc folds a negative shared base into [%r+68]; the 32-bit
# address must wrap (it read offset 0x100000004 and stopped with a memcheck error) --------
expect 0 "" "$COALCHECK" fix --launch "$R/nw.launch" -o "$TMP/nw" -q --json "$TMP/nw.json"
# line 44, temp[tx + 1][0] = matrix_cuda[index_w + cols * tx]: 8 CTAs of 16 threads, one
# request each; lane tx reads row tx, 513 ints = 2052 bytes apart (> 32): 16 sectors a
# request, 8 x 16 = 128. The shared store's word is 17 (tx + 1) (rows of 17 ints): bank
# (17 tx + 17) mod 32, distinct for tx = 0..15 since 17 is odd: 1 wavefront a request, 8.
line=$(grep -n 'temp\[tx + 1\]\[0\] = matrix_cuda' "$R/nw.cu" | cut -d: -f1)
[ "$(line_figures "$TMP/nw.json" before global load "$line")" = "8 128 0" ] || fail "nw: line $line global load"
[ "$(line_figures "$TMP/nw.json" before shared store "$line")" = "8 0 8" ] || fail "nw: line $line shared store"
# The wavefront reads temp[m - tx + 1 - 1][tx + 1 - 1], word R (m - tx) + tx = R m - (R - 1)
# tx for rows of R words: R = 17 (odd, so the textbook rule leaves it) gives a stride of
# -16 words, 2 banks for 16 lanes; ref[16][16] read the same way has stride -15, conflict
# free, and the textbook padding of its even rows (17) makes it -16 (worse: no gain).
# Rows of 19 and 18 (both padded by two) give strides -18 and -17 words: 16 distinct banks
# either way, every access ideal.
jcheck "$TMP/nw.json" 'd["transform"] == "pad" and d["verified"] is True and "padded by two elements" in d["what"]'
jcheck "$TMP/nw.json" 'd["after"]["kernels"][0]["totals"]["wavefronts"] == d["after"]["kernels"][0]["totals"]["ideal_wavefronts"] < d["before"]["kernels"][0]["totals"]["wavefronts"]'

# ---- the SDK transpose with a 16x16 tile (block[16][16], 16x16 threads): a warp holds two
# rows ty = r, r + 1 of 16 lanes. 512 x 256 floats, 512 CTAs x 8 warps = 4096 requests for
# each shared access. Read block[tx][ty]: word 16 tx + ty, banks ty and 16 + ty, 8 lanes
# each: 8 wavefronts; store block[ty][tx]: 32 consecutive words, 1. Before: 4096 x 9 =
# 36864. Rows of 17 (padded by one): the read meets lanes (0, r) and (15, r + 1) 256 words
# apart (2 wavefronts), the store's second row wraps onto banks 0 (2): 16384. Rows of 18:
# read 18 tx + ty, 18 tx mod 32 the 16 even banks, ty and ty + 1 of both parities: 1
# wavefront; store 18 r + {0..15} and 18 r + {18..33}: banks 0, 1 twice, 2. 4096 x 3 = 12288.
expect 0 "" "$COALCHECK" fix --launch "$R/transpose_shared.launch" -o "$TMP/trs" -q --json "$TMP/trs.json"
jcheck "$TMP/trs.json" 'd["transform"] == "pad" and d["verified"] is True and "rows of 64 -> 72 bytes" in d["what"]'
jcheck "$TMP/trs.json" '(d["before"]["kernels"][0]["totals"]["wavefronts"], d["after"]["kernels"][0]["totals"]["wavefronts"]) == (36864, 12288)'
dump_compare "$R/transpose_shared.launch" "$TMP/trs" odata

# ---- hotspot (16x16 blocks): threadIdx.x has the unit stride already, so the advice is the
# block's width, never "swap threadIdx.x and threadIdx.y" (which would make it worse) ------
expect 0 "" "$COALCHECK" --launch "$R/hotspot.launch" -q --json "$TMP/hot.json"
jcheck "$TMP/hot.json" 'any("make blockDim.x a multiple of 32 (e.g. 32 x 8 instead of 16 x 16)" in g["text"] for i in d["kernels"][0]["instructions"] for g in i["suggestions"])'
jcheck "$TMP/hot.json" 'not any("swap" in g["text"] for i in d["kernels"][0]["instructions"] for g in i["suggestions"])'

# ---- kmeansPoint (features[point * nfeatures + j], 34 features inside a loop over 5
# clusters): the V rule counted the whole nest (5 x 34 = 170 a thread, V = 32); one run of
# the loop over j is 34 iterations: short, 34 / 4 = 8.5, nearest power of two 8 -----------
expect 0 "" "$COALCHECK" fix --launch "$R/kmeans_point.launch" -o "$TMP/kmp" -q --json "$TMP/kmp.json"
jcheck "$TMP/kmp.json" 'd["transform"] == "redistribute" and d["verified"] is True'
jcheck "$TMP/kmp.json" '"V = 8 lanes a thread by the rule" in d["why"] and "/ 5 runs a thread" in d["why"]'

# ---- kmeans invert_mapping: nothing applies; the refusal names all six transformations,
# pad (the last) included (the message was cut at 1 KiB, in the middle of soa's line) -------
expect 11 "no transformation improves invert_mapping" "$COALCHECK" fix \
  --launch "$R/kmeans_invert.launch" -o "$TMP/inv" -q
for t in permute lift redistribute tile soa pad; do
  grep -q "^$t: " "$TMP/err" || fail "kmeans invert_mapping: no refusal line for $t"
done
grep -q "^lift: .*kmeans.cu:[0-9]*:[0-9]*: " "$TMP/err" || fail "kmeans: lift's refusal has no FILE:LINE:COL"
# the kernel's trailing `return;` is no construct to refuse: lift's reason is the real one,
# the load (coalesced along i) and the store (along point_id) are a transposition
grep -q "^lift: .*no loop has fewer non-unit-stride references" "$TMP/err" ||
  fail "kmeans: lift refused for another reason than the transposition"
[ ! -e "$TMP/inv" ] || fail "a refused fix wrote its folder"

# ---- nn (struct {float lat, lng;}): soa, bitwise, by subscript and, as Rodinia writes it,
# through a local pointer to the thread's element (`LatLong *latLong = d_locations +
# globalId;`, which soa refused as address arithmetic) ----------------------------------
# 16384 records, 512 warps; a warp's lat loads span 32 x 8 = 256 bytes = 8 sectors (ideal 4);
# in blocks of 32 records each member is one 128-byte run: 4 sectors. The line reading lat
# (twice in the source, nvcc loads it once): 512 requests, 512 x 8 = 4096 sectors before,
# 512 x 4 = 2048 after.
for k in nn_sub:'(lat - d_locations\[globalId\].lat)' nn:'(lat - latLong->lat)'; do
  name=${k%%:*} pat=${k#*:}
  expect 0 "" "$COALCHECK" fix --launch "$R/$name.launch" -o "$TMP/$name" -q --json "$TMP/$name.json"
  jcheck "$TMP/$name.json" 'd["transform"] == "soa" and d["verified"] is True and d["bitwise_equal"] is True'
  line=$(grep -n "$pat" "$R/nn.cu" | cut -d: -f1)
  [ "$(line_figures "$TMP/$name.json" before global load "$line")" = "512 4096 0" ] || fail "$name: before"
  [ "$(line_figures "$TMP/$name.json" after global load "$line")" = "512 2048 0" ] || fail "$name: after"
  dump_compare "$R/$name.launch" "$TMP/$name" d_distances
done
grep -q 'const long long latLong = (globalId);' "$TMP/nn/nn.cu" || fail "nn: latLong not made an index"

# ---- lud_perimeter: pad, bitwise ---------------------------------------------------------
# The column CTA half (threadIdx.x 16..31, idx = threadIdx.x - 16) reads peri_col[idx][j]:
# word 16 idx + j, bank j (idx even) or 16 + j (idx odd): 8 lanes with different words in
# one bank, 8 wavefronts a request; rows of 17 floats make it word 17 idx + j, 16 distinct
# banks: 1 wavefront. dia[j][i] on the same line is one word for all lanes (1 wavefront).
# So on line 84 every shared load takes 1 or 8 wavefronts a request before, 1 after.
expect 0 "" "$COALCHECK" fix --launch "$R/lud_perimeter.launch" -o "$TMP/lud" -q --json "$TMP/lud.json"
jcheck "$TMP/lud.json" 'd["transform"] == "pad" and d["verified"] is True and d["bitwise_equal"] is True'
line=$(grep -n 'peri_col\[idx\]\[i\] -= peri_col\[idx\]\[j\]' "$R/lud.cu" | cut -d: -f1)
python3 - "$TMP/lud.json" "$line" <<'PY' || fail "lud_perimeter: line $line wavefronts"
import json, sys
d = json.load(open(sys.argv[1])); line = int(sys.argv[2])
def ratios(which):
    return sorted({i["wavefronts"] // i["requests"] for i in d[which]["kernels"][0]["instructions"]
                   if i["space"] == "shared" and i["op"] == "load" and i["source"]["line"] == line})
sys.exit(0 if ratios("before") == [1, 8] and ratios("after") == [1] else 1)
PY
dump_compare "$R/lud_perimeter.launch" "$TMP/lud" m

finish
