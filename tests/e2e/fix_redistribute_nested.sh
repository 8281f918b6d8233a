#!/bin/bash
# `coalcheck fix --transform redistribute` on a loop nested in another (kmeans' shape: a
# point's distance to each of K centres, M features a row): the lanes-per-thread rule
# (src/fix/redistribute.c, loop_trips) takes the trip count of one run of the loop it
# spreads, M, not the whole nest's K x M. Needs nvcc; skipped without it.
#
# Expected figures, derived by hand. 64 points (grid 2 x block 32), k = 4 centres, m = 32
# features. The inner loop reads 2 elements a step (pts[p * m + j], ctr[c * m + j]), each
# load runs 64 x 4 x 32 = 8192 thread executions: 16384 / 2 a step / 64 threads = 128
# iterations a thread, / 4 runs a thread (the loop over c, 0..3) = 32 a run. 32 < 64:
# short; 32 / 4 = 8, V = 8 lanes. (The whole nest's 128 would have kept V = 32.)
# The loop over c is not rewritten (its body stores and compares), so j's runs 4 times.
. "$(dirname "$0")/data/common.bash"
[ -n "$(find_nvcc)" ] || { echo "skip: nvcc not found"; exit 77; }

cat > "$TMP/near.cu" <<'CU'
__global__ void nearest(const float *pts, const float *ctr, int n, int k, int m, int *best)
{
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p < n) {
    float bd = 3.0e38f;
    int bi = -1;
    for (int c = 0; c < k; c++) {
      float s = 0.0f;
      for (int j = 0; j < m; j++) {
        float d = pts[p * m + j] - ctr[c * m + j];
        s += d * d;
      }
      if (s < bd) {
        bd = s;
        bi = c;
      }
    }
    best[p] = bi;
  }
}
CU
cat > "$TMP/near.launch" <<'L'
near.cu --kernel nearest --grid 2 --block 32
--arg 'pts=f32[n*m]:random:5' --arg 'ctr=f32[k*m]:random:6' --arg n=64 --arg k=4 --arg m=32
--arg 'best=s32[n]:zero'
L

expect 0 "" "$COALCHECK" fix --transform redistribute --launch "$TMP/near.launch" \
  -o "$TMP/near" -q --json "$TMP/near.json"
jcheck "$TMP/near.json" 'd["verified"] is True'
jcheck "$TMP/near.json" 'd["what"].endswith("spread over 8 lanes, 4 threads a warp (warp shuffle)")'
jcheck "$TMP/near.json" '"V = 8 lanes a thread by the rule" in d["why"] and "runs 32.0 times each time a thread enters it" in d["why"]'
jcheck "$TMP/near.json" '"16384 thread executions of its global loads / 2 a step / 64 threads / 4 runs a thread" in d["why"]'
jcheck "$TMP/near.json" 'd["block"] == [32, 8, 1]'
# m = 32: each thread's 8 lanes read 32 aligned bytes of pts (rows of 128 bytes) and all
# threads the same 32 bytes of ctr: every access at its ideal, nothing left to explain.
jcheck "$TMP/near.json" 'd["remaining"] == ""'

# m = 34 (kmeans' 136-byte rows): 136 mod 32 = 8, so most threads' 32-byte runs of pts
# straddle two sectors and the load on line 10 (the loop is on 9) keeps excess sectors.
# The unrolled loop makes several PTX loads of that line: "still uncoalesced" names the
# line once (summed), and says nothing of a permutation (none was made).
sed 's/--arg m=32/--arg m=34/' "$TMP/near.launch" > "$TMP/near34.launch"
expect 0 "" "$COALCHECK" fix --transform redistribute --launch "$TMP/near34.launch" \
  -o "$TMP/near34" -q --json "$TMP/near34.json"
jcheck "$TMP/near34.json" 'd["verified"] is True and d["remaining"].count("line 10 load") == 1'
jcheck "$TMP/near34.json" '"permutation" not in d["remaining"] and "tiling" not in d["remaining"]'
finish
