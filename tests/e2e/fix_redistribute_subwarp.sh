#!/bin/bash
# `coalcheck fix --transform redistribute` on a short, variable-length loop: CSR SpMV,
# one thread per row, rows of 16 and 48 nonzeros. The lanes-per-thread rule (src/fix/
# redistribute.c) gives V = 8 lanes a row, 4 rows a warp; the other V are verified as
# alternates. Also the ELL form of the same product (column-major, already coalesced but
# for the gather of vec): no redistribution improves it, and fix says why. Needs nvcc;
# skipped without it.
#
# Expected figures, derived by hand. csr: rows = 64 (grid 2 x block 32), row r has 16
# nonzeros when r is even and 48 when odd (nnz = 32 x 64 = 2048, on average 32 a row);
# rowptr[2m] = 64m, rowptr[2m+1] = 64m + 16; cols = iota (cols[j] = j), so vec[cols[j]]
# reads vec[j]. Every row starts at a multiple of 16 floats (64 bytes).
# - The rule: the loop's global loads run 3 x 2048 = 6144 thread executions (cols[j] on
#   the line of `int col`, val[j] and vec[col] on the next), 3 reads a step, 64 threads:
#   32.0 a thread, under 64; V = the power of two nearest 32 / 4 = 8.
# - Before: at each step the active lanes' elements are at least 16 floats apart (64 B):
#   one sector per lane and load: 2048 on the line of cols[j], 2 x 2048 = 4096 on the next.
# - After, V = 8 (16 warps of 4 rows): a group reads 8 consecutive floats at offset 8t of
#   a 64-byte-aligned row: one whole sector a step, no two groups in one sector; a row of
#   L takes L / 8 steps (2 or 6): 32 x (2 + 6) = 256 sectors an array: 256 and 512.
#   The bounds: rowptr[4w..4w+3] (16 bytes at 16w) one sector a warp: 16; rowptr[4w+1..
#   4w+4] at 16w + 4: 2 sectors when w is odd (bytes 20..35 of a 32-byte pair): 8 + 16 =
#   24; out[4w..4w+3] by each group's lane 0: one sector a warp: 16. Total 768 + 56 = 824.
# - V = 32 (one row a warp, 64 warps): a row of 16 is one step of 64 bytes (2 sectors), a
#   row of 48 a step of 128 and one of 64 bytes (6): 256 an array, 768; rowptr 64 + 64,
#   out 64: 960. V = 16 (32 warps of 2 rows): 2 and 6 sectors a row again, 768; rowptr
#   [2w..2w+1] one sector: 32; rowptr[2w+1..2w+2] at 8w + 4 crosses a sector when w % 4
#   == 3: 32 + 8 = 40; out 32: 872. V = 4 (8 warps of 8 rows): 16 bytes a step, one sector
#   each, L / 4 steps: 32 x (4 + 12) = 512 an array, 1536; rowptr 8 + 16 (32 bytes at 32w
#   + 4 span 2), out 8: 1568.
# - The shared form at V = 8: per warp one store, 3 levels of 2 loads and a store, one
#   load of the group's sum: 11 wavefronts (a group's 8 words in a row of 32 banks, the
#   last load a broadcast per group), 16 warps: 176.
# - The sums: the verification's bound on terms (redistribute.c, loaded bounds) is 1 +
#   the most executions by one warp of each global load on the loop's lines, nvcc's
#   unrolled copies summed: a warp holding a row of 48 runs each of the 3 loads 48 times:
#   1 + 3 x 48 = 145 (valid, loose). The true sums have at most 48 terms in [0, 1) and
#   t's 0, so the outputs are checked against the tighter 2 gamma(51) = 6.0797e-6.
# ell: the same 64 rows, width 32, val and cols column-major (element k of row r at k x 64
# + r): a warp's 32 rows read 128 consecutive bytes a step (4 sectors, the ideal); only
# vec[col] (random columns) has excess, and no order of the loop's iterations removes it:
# spreading the loop over lanes makes val and cols stride 256 bytes, more sectors, so the
# candidates are refused ("no improvement") and fix exits 11 with the reasons.
. "$(dirname "$0")/data/common.bash"
NVCC=$(find_nvcc)
[ -n "$NVCC" ] || { echo "skip: nvcc not found"; exit 77; }

cat > "$TMP/sub.cu" <<'CU'
__global__ void csr(const float *val, const int *cols, const int *rowptr, const int rows,
                    const float *vec, float *out)
{
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float t = 0.0f;
    int start = rowptr[row];
    int end = rowptr[row + 1];
    for (int j = start; j < end; j++) {
      int col = cols[j];
      t += val[j] * vec[col];
    }
    out[row] = t;
  }
}

__global__ void ell(const float *val, const int *cols, const int rows, const int width,
                    const float *vec, float *out)
{
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float t = 0.0f;
    for (int k = 0; k < width; k++) {
      int col = cols[k * rows + row];
      t += val[k * rows + row] * vec[col];
    }
    out[row] = t;
  }
}
CU
python3 - "$TMP" <<'PY'
import random, struct, sys
d = sys.argv[1]
rp = [0]
for r in range(64):
    rp.append(rp[-1] + (16 if r % 2 == 0 else 48))
assert rp[-1] == 2048 and rp[2] == 64 and rp[3] == 80
open(d + "/rowptr.bin", "wb").write(struct.pack("<65i", *rp))
random.seed(7)
open(d + "/ellcols.bin", "wb").write(struct.pack("<2048i", *[random.randrange(64) for _ in range(2048)]))
PY
cat > "$TMP/csr.launch" <<'L'
sub.cu --kernel csr --grid 2 --block 32
--arg 'val=f32[2048]:random:61' --arg 'cols=s32[2048]:iota'
--arg 'rowptr=s32[rows+1]:file:rowptr.bin' --arg rows=64
--arg 'vec=f32[2048]:random:62' --arg 'out=f32[rows]:zero'
L
cat > "$TMP/ell.launch" <<'L'
sub.cu --kernel ell --grid 2 --block 32
--arg 'val=f32[2048]:random:61' --arg 'cols=s32[2048]:file:ellcols.bin' --arg rows=64
--arg width=32 --arg 'vec=f32[rows]:random:62' --arg 'out=f32[rows]:zero'
L

# sectors of the global loads on source line LINE in report FILE (before/after)
line_sectors() {
  python3 - "$1" "$2" "$3" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); which, line = sys.argv[2], int(sys.argv[3])
k = d[which]["kernels"][0]
print(sum(i["sectors"] for i in k["instructions"]
          if i["op"] == "load" and i["space"] == "global" and i["source"]["line"] == line))
PY
}

# ---- csr: V = 8 by the rule ----------------------------------------------------------------
expect 0 "" "$COALCHECK" fix --transform redistribute --launch "$TMP/csr.launch" \
  -o "$TMP/csr" -q --json "$TMP/csr.json"
jcheck "$TMP/csr.json" 'd["verified"] is True and d["bitwise_equal"] is False and d["terms"] == 145'
jcheck "$TMP/csr.json" 'd["what"].endswith("spread over 8 lanes, 4 threads a warp (warp shuffle)")'
jcheck "$TMP/csr.json" 'd["block"] == [32, 8, 1] and d["grid"] == [2, 1, 1]'
jcheck "$TMP/csr.json" '"V = 8 lanes a thread by the rule" in d["why"] and "runs 32.0 times a thread" in d["why"] and "6144 thread executions" in d["why"]'
line=$(grep -n 'int col = cols\[j\];' "$TMP/sub.cu" | cut -d: -f1)
[ "$(line_sectors "$TMP/csr.json" before "$line")" = 2048 ] || fail "csr: cols before"
[ "$(line_sectors "$TMP/csr.json" before $((line + 1)))" = 4096 ] || fail "csr: val, vec before"
[ "$(line_sectors "$TMP/csr.json" after "$line")" = 256 ] || fail "csr: cols after"
[ "$(line_sectors "$TMP/csr.json" after $((line + 1)))" = 512 ] || fail "csr: val, vec after"
# every candidate: (lanes, form) -> (alternate, sectors, wavefronts), all verified
python3 - "$TMP/csr.json" <<'PY' || fail "csr: the candidates' figures"
import json, re, sys
d = json.load(open(sys.argv[1]))
got = {}
for c in d["source_candidates"]:
    m = re.search(r"over (?:the )?(\d+) lanes.*\((warp shuffle|shared memory)\)", c["what"])
    got[(int(m.group(1)), m.group(2)[:6])] = (c["verified"], c["alternate"],
                                               c["measured_sectors"], c["measured_wavefronts"])
# V = 32's shared form: 17 wavefronts a warp (fix_redistribute.sh), 64 warps: 1088
want = {(32, "warp s"): (True, True, 960, 0), (32, "shared"): (True, True, 960, 1088),
        (8, "warp s"): (True, False, 824, 0), (8, "shared"): (True, False, 824, 176),
        (16, "warp s"): (True, True, 872, 0), (4, "warp s"): (True, True, 1568, 0)}
if got != want:
    print("got ", sorted(got.items())); print("want", sorted(want.items())); sys.exit(1)
PY
# the fixed kernel compiles on its own, and its outputs are the original's within the bound
"$NVCC" -c -arch=sm_90 -o "$TMP/csr.o" "$TMP/csr/sub.cu" || fail "csr: the fixed file does not compile"
fixed=$(ls "$TMP"/csr/*.launch)
"$COALCHECK" --launch "$TMP/csr.launch" -q --dump "out=$TMP/orig.bin" >/dev/null || fail "csr: original run"
"$COALCHECK" --launch "$fixed" -q --dump "out=$TMP/fixed.bin" >/dev/null || fail "csr: fixed run"
python3 - "$TMP/orig.bin" "$TMP/fixed.bin" <<'PY' || fail "csr: outputs beyond 2 gamma(51)"
import struct, sys
a, b = (open(p, "rb").read() for p in sys.argv[1:3])
x, y = (struct.unpack("<%df" % (len(s) // 4), s) for s in (a, b))
sys.exit(0 if len(x) == 64 == len(y) and all(abs(p - q) <= 6.0797e-6 * abs(p) for p, q in zip(x, y)) else 1)
PY

# ---- ell: refused with the reason ------------------------------------------------------------
expect 11 "no improvement" "$COALCHECK" fix --transform redistribute --launch "$TMP/ell.launch" \
  -o "$TMP/ell" -q
grep -qF "redistribute: global sectors" "$TMP/err" || fail "ell: the refusal does not give the sectors"
[ ! -e "$TMP/ell" ] || fail "ell: DIR written for a refusal"

finish
