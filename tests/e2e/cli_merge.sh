#!/usr/bin/env bash
# coalcheck merge (src/cli/cmd_merge.c, src/report/merge.c) on reports of the `scale` kernel
# of tests/e2e/data/kernels.ptx (no nvcc needed) made with different --arg n, as three
# ranks of an MPI job would, their names from the Nsight pattern %q{RANK} (outname.c).
#
# scale(out, in, n, a): i = blockIdx.x*blockDim.x + threadIdx.x; if (i < n) out[i] = a*in[i]
# run with grid 1, block 64 (two warps); buffers f32[n], 256-byte aligned (launch.h). Per rank:
#   n = 32: warp 0 all lanes (128 B = 4 sectors per access), warp 1 none: load 1 request,
#           store 1 request: totals 2 requests, 8 sectors.
#   n = 48: warp 0 as above, warp 1 lanes 0..15 (64 B at a 128-byte boundary = 2 sectors):
#           load 2, store 2: totals 4 requests, 4+2+4+2 = 12 sectors.
#   n = 64: both warps whole: totals 4 requests, 16 sectors.
# Excess sectors and wavefronts are 0 everywhere. Imbalance against the fewest (rank 0: 2
# requests, 8 sectors): ranks 1 and 2 have 2 more requests (+100.0%); sectors rank 1 +4
# (+50.0%), rank 2 +8 (+100.0%). With --imbalance-threshold 60 only rank 2's sectors and
# both ranks' requests (100 > 60) remain flagged; with 100, nothing (100 is not above 100).
# A fourth report with grid 2, block 32 is another launch: missing in ranks 0-2.
source "$(dirname "$0")/data/common.bash"
K="$COALCHECK_SRC/tests/e2e/data/kernels.ptx"

cd "$TMP" || exit 1
rank=0
for n in 32 48 64; do
  RANK=$rank "$COALCHECK" "$K" --kernel scale --grid 1 --block 64 --arg 'out=f32[n]:zero' \
    --arg 'in=f32[n]:iota' --arg n=$n --arg a=2 -q --json 'r%q{RANK}.json' >/dev/null ||
    fail "the run of rank $rank failed"
  rank=$((rank + 1))
done
"$COALCHECK" "$K" --kernel scale --grid 2 --block 32 --arg 'out=f32[n]:zero' \
  --arg 'in=f32[n]:iota' --arg n=64 --arg a=2 -q --json g.json >/dev/null || fail "grid 2 run"
for f in r0.json r1.json r2.json; do [ -f "$f" ] || fail "%q{RANK} did not make $f"; done

# text
"$COALCHECK" merge r0.json r1.json r2.json >out.txt 2>err.txt || { fail "merge failed"; cat err.txt; }
grep -Eq '^    requests +2 +4 +4$' out.txt || fail "totals requests row: $(grep -m1 requests out.txt)"
grep -Eq '^    sectors +8 +12 +16$' out.txt || fail "totals sectors row"
grep -qF 'load imbalance: rank 1 (r1.json): requests 4 is 2 more (+100.0%) than rank 0' out.txt ||
  fail "rank 1 not flagged"
grep -qF 'load imbalance: rank 2 (r2.json): requests 4 is 2 more (+100.0%)' out.txt ||
  fail "rank 2 not flagged"
grep -qF 'rank 1 (r1.json): sectors 12 is 4 more (+50.0%)' out.txt || fail "rank 1 sectors"
[ "$(grep -c 'load imbalance\|figures differ' out.txt)" = 4 ] || fail "not 4 flags"

# threshold: 60% keeps the requests (+100%) and rank 2's sectors (+100%), not rank 1's (+50%)
"$COALCHECK" merge --imbalance-threshold 60 r0.json r1.json r2.json >out60.txt || fail "merge 60"
[ "$(grep -c 'load imbalance\|figures differ' out60.txt)" = 3 ] || fail "threshold 60: not 3 flags"
grep -qF 'rank 1 (r1.json): sectors' out60.txt && fail "threshold 60 flags rank 1's +50% sectors"
"$COALCHECK" merge --imbalance-threshold 100 r0.json r1.json r2.json >out100.txt || fail "merge 100"
grep -q 'load imbalance\|figures differ' out100.txt && fail "threshold 100 still flags"

# JSON and CSV, and a launch missing in some ranks (reported, not fatal)
"$COALCHECK" merge --json m.json --csv m.csv r0.json r1.json r2.json g.json >out4.txt ||
  fail "merge with g.json failed"
jcheck m.json 'd["document"] == "coalcheck-merge" and d["schema_version"] == 5 and len(d["ranks"]) == 4'
jcheck m.json 'd["kernels"][0]["totals"]["requests"] == [2, 4, 4, None]'
jcheck m.json 'd["kernels"][0]["totals"]["sectors"] == [8, 12, 16, None]'
jcheck m.json 'd["kernels"][0]["missing_ranks"] == [3] and d["kernels"][1]["missing_ranks"] == [0, 1, 2]'
jcheck m.json 'd["kernels"][1]["grid"] == [2, 1, 1] and d["kernels"][1]["totals"]["requests"] == [None, None, None, 4]'
jcheck m.json '[(f["metric"], f["rank"], f["difference"], f["percent"]) for f in d["kernels"][0]["flags"] if f["metric"] == "requests"] == [("requests", 1, 2, 100.0), ("requests", 2, 2, 100.0)]'
jcheck m.json 'sorted(i["requests"] for i in d["kernels"][0]["instructions"]) == [[1, 2, 2, None], [1, 2, 2, None]]'
grep -qF 'missing: rank 3 (g.json) has no such launch of scale' out4.txt || fail "missing rank 3 not said"
head -n1 m.csv | grep -qF 'requests rank 0,requests rank 1,requests rank 2,requests rank 3,sectors [32 B] rank 0' ||
  fail "CSV header: $(head -n1 m.csv)"
grep -q '^scale,"1,1,1","64,1,1",1,totals,,,,,2,4,4,,8,12,16,' m.csv || fail "CSV totals row"

# bad input
echo '{"schema_version": 2, "tool_version": "0.0.1", "arch": "sm_90", "kernels": []}' >old.json
expect 3 "old.json has schema_version 2 but r0.json has 5" "$COALCHECK" merge r0.json old.json
echo '{"hello": 1}' >foreign.json
expect 3 "foreign.json: not a coalcheck report" "$COALCHECK" merge r0.json foreign.json
echo 'not json' >text.json
expect 3 "text.json: not JSON" "$COALCHECK" merge text.json r0.json
"$COALCHECK" "$K" --kernel scale --grid 1 --block 64 --arg 'out=f32[n]:zero' --arg 'in=f32[n]:iota' \
  --arg n=32 --arg a=2 -q --arch sm_90,cc1.0 --json cmp.json >/dev/null || fail "comparison run"
expect 3 "a 'coalcheck-compare' document, not a report" "$COALCHECK" merge r0.json cmp.json
expect 2 "no report given" "$COALCHECK" merge
expect 2 "bad value 'x' for --imbalance-threshold" "$COALCHECK" merge --imbalance-threshold x r0.json
expect 2 "would destroy an input" "$COALCHECK" merge --json r1.json r0.json r1.json
expect 2 "unknown pattern '%z' at position 2" "$COALCHECK" merge --json 'm%z' r0.json
unset NO_SUCH_RANK_VAR
expect 2 "NO_SUCH_RANK_VAR" "$COALCHECK" r0.json --json 'r%q{NO_SUCH_RANK_VAR}.json'

# A bundled example (needs nvcc; this part is skipped without it): examples/row_sums'
# row_sums_warp, one warp per row, grid 1, block 64 (2 warps = rows 2), cols C per rank.
# Each warp reads its row 32 floats a step: C/32 requests of 128 contiguous bytes at a
# multiple of 128 (rows of C*4 bytes, C a multiple of 32; buffers 256-byte aligned) = 4
# sectors, none excess; then lane 0 stores one float: 1 request, 1 sector. Totals:
# requests 2*C/32 + 2, sectors 4*(2*C/32) + 2: C = 64: 6, 18; 128: 10, 34; 256: 18, 66.
# Flags against rank 0: requests +4 (+66.7%) and +12 (+200.0%).
if [ -n "$(find_nvcc)" ]; then
  for c in 64 128 256; do
    "$COALCHECK" "$COALCHECK_SRC/examples/row_sums/row_sums.cu" --kernel row_sums_warp \
      --grid 1 --block 64 --arg 'sums=f32[rows]:zero' --arg 'a=f32[rows*cols]:random:9' \
      --arg rows=2 --arg cols=$c -q --json "rs$c.json" >/dev/null || fail "row_sums cols=$c"
  done
  "$COALCHECK" merge --json rs.json rs64.json rs128.json rs256.json >rs.txt || fail "merge row_sums"
  jcheck rs.json 'd["kernels"][0]["totals"]["requests"] == [6, 10, 18]'
  jcheck rs.json 'd["kernels"][0]["totals"]["sectors"] == [18, 34, 66]'
  jcheck rs.json 'd["kernels"][0]["totals"]["excess_sectors"] == [0, 0, 0]'
  grep -qF 'rank 1 (rs128.json): requests 10 is 4 more (+66.7%) than rank 0' rs.txt ||
    fail "row_sums: rank 1 not flagged"
  grep -qF 'rank 2 (rs256.json): requests 18 is 12 more (+200.0%)' rs.txt ||
    fail "row_sums: rank 2 not flagged"
else
  echo "note: no nvcc, the row_sums part is skipped"
fi

[ "$fails" -eq 0 ] || exit 1
echo "ok: merge"
