#!/bin/bash
# `coalcheck fix --transform redistribute` (a thread's reduction loop spread over the 32
# lanes of a warp, CGO 2015 Sec. 4.4, Algorithm 3) on examples/gemv and
# examples/redistribute. Needs nvcc (the inputs are CUDA C) and libclang; skipped without
# nvcc.
#
# Expected figures, derived by hand (examples/gemv/gemv.cu, examples/redistribute/
# redistribute.cu): the rewrite keeps every line number, so lines compare directly.
# - gemv_rows, n = 1024: the load of A, 32 sectors per request before (32 warps x 1024
#   requests = 1,048,576 sectors); after, one warp per row reads 32 consecutive floats per
#   request: 4 sectors, 1024 rows x 32 requests = 131,072.
# - spmv_csr_scalar: val, colidx and x on one line: 3 x nnz = 98,256 sectors before (one
#   per active lane and step); after, 8-float-aligned rows of whole sectors: 3 x 32,752 / 8
#   = 12,282.
# - row_sums_u32: unsigned sums are exact in any order: bitwise equal, 1,048,576 -> 131,072.
# - mvt_kernel1: the shared-memory form costs 17 wavefronts per warp (one store, 5 levels
#   of 2 loads and a store, one broadcast load; [8][32] floats, a warp's row in 32 banks:
#   no conflict), 1024 warps: 17,408; the shuffle form none.
# The floats of a reassociated sum: every input is in [0, 1), so sum |terms| = the sum and
# the bound 2 gamma(n) sum|terms| of fix_impl.h is relative: n = 1024 + 1 + 2 terms,
# gamma(n) = n u / (1 - n u) with u = 2^-24: 2 gamma(1027) = 1.22435e-4 (1.2243e-4 below).
. "$(dirname "$0")/data/common.bash"
[ -n "$(find_nvcc)" ] || { echo "skip: nvcc not found"; exit 77; }
EX="$COALCHECK_SRC/examples"

# run_both LAUNCH DIR BUF: the original launch and DIR's launch, BUF dumped from each
run_both() {
  local fixed
  fixed=$(ls "$2"/*.launch)
  "$COALCHECK" --launch "$1" -q --dump "$3=$TMP/orig.bin" >/dev/null 2>"$TMP/e1" ||
    { fail "original $1 did not run"; cat "$TMP/e1"; return 1; }
  "$COALCHECK" --launch "$fixed" -q --dump "$3=$TMP/fixed.bin" >/dev/null 2>"$TMP/e2" ||
    { fail "fixed $fixed did not run"; cat "$TMP/e2"; return 1; }
}

# within_f32 BOUND: orig.bin and fixed.bin (f32) differ by at most BOUND relatively
within_f32() {
  python3 - "$TMP/orig.bin" "$TMP/fixed.bin" "$1" <<'PY' || fail "fixed outputs beyond the bound $1"
import struct, sys
a, b = (open(p, "rb").read() for p in sys.argv[1:3])
x, y = (struct.unpack("<%df" % (len(s) // 4), s) for s in (a, b))
worst = max(abs(p - q) / abs(p) for p, q in zip(x, y) if p != q) if x != y else 0.0
sys.exit(0 if len(x) == len(y) and worst <= float(sys.argv[3]) else 1)
PY
}

# ---- gemv_rows: atax_kernel1's shape ---------------------------------------------------------
expect 0 "" "$COALCHECK" fix --transform redistribute --launch "$EX/gemv/rows.launch" \
  -o "$TMP/gemv" --json "$TMP/gemv.json"
grep -q 'not bitwise equal: reassociated' "$TMP/out" || fail "gemv: the summary does not say 'not bitwise equal: reassociated'"
for f in gemv.cu gemv_rows.launch fix.diff; do
  [ -s "$TMP/gemv/$f" ] || fail "gemv: $f not written"
done
jcheck "$TMP/gemv.json" 'd["verified"] is True and d["transform"] == "redistribute" and d["bitwise_equal"] is False and d["terms"] == 1025'
jcheck "$TMP/gemv.json" 'd["block"] == [32, 8, 1] and d["grid"] == [128, 1, 1]'
line=$(grep -n 'float a = A\[(size_t)i \* n + j\];' "$EX/gemv/gemv.cu" | head -n1 | cut -d: -f1)
[ "$(line_sectors "$TMP/gemv.json" before load "$line")" = 1048576 ] || fail "gemv A before"
[ "$(line_sectors "$TMP/gemv.json" after load "$line")" = 131072 ] || fail "gemv A after"
grep -q '^--grid 128,1,1 --block 32,8,1$' "$TMP/gemv/gemv_rows.launch" || fail "gemv: launch geometry"
run_both "$EX/gemv/rows.launch" "$TMP/gemv" y && within_f32 1.2243e-4

# ---- CSR SpMV: bounds loaded from memory -------------------------------------------------------
expect 0 "" "$COALCHECK" fix --transform redistribute --launch "$EX/redistribute/spmv_csr.launch" \
  -o "$TMP/spmv" -q --json "$TMP/spmv.json"
line=$(grep -n 'dot += val\[k\] \* x\[colidx\[k\]\];' "$EX/redistribute/redistribute.cu" | cut -d: -f1)
[ "$(line_sectors "$TMP/spmv.json" before load "$line")" = 98256 ] || fail "spmv before"
[ "$(line_sectors "$TMP/spmv.json" after load "$line")" = 12282 ] || fail "spmv after"
jcheck "$TMP/spmv.json" 'd["verified"] is True and d["bitwise_equal"] is False'
# rows of at most 48 terms; all inputs in [0, 1): 2 gamma(51) = 6.0797e-6 bounds the error
run_both "$EX/redistribute/spmv_csr.launch" "$TMP/spmv" y && within_f32 6.07e-6

# ---- integer sums: bitwise ----------------------------------------------------------------------
expect 0 "" "$COALCHECK" fix --transform redistribute --launch "$EX/redistribute/row_sums_u32.launch" \
  -o "$TMP/u32" --json "$TMP/u32.json"
grep -q 'bitwise equal' "$TMP/out" || fail "u32: the summary does not say bitwise equal"
jcheck "$TMP/u32.json" 'd["verified"] is True and d["bitwise_equal"] is True'
line=$(grep -n 's += a\[(size_t)r \* cols + c\];' "$EX/redistribute/redistribute.cu" | cut -d: -f1)
[ "$(line_sectors "$TMP/u32.json" after load "$line")" = 131072 ] || fail "u32 after"
run_both "$EX/redistribute/row_sums_u32.launch" "$TMP/u32" sums &&
  { cmp -s "$TMP/orig.bin" "$TMP/fixed.bin" || fail "u32: sums differ from the original's"; }

# ---- mvt: both forms measured, the shared one's wavefronts ---------------------------------------
expect 0 "" "$COALCHECK" fix --transform redistribute --launch "$EX/redistribute/mvt.launch" \
  -o "$TMP/mvt" -q --json "$TMP/mvt.json"
jcheck "$TMP/mvt.json" 'sorted(c["measured_wavefronts"] for c in d["source_candidates"]) == [0, 17408]'
jcheck "$TMP/mvt.json" 'all(c["verified"] for c in d["source_candidates"]) and "warp shuffle" in d["what"]'

# ---- refusals ---------------------------------------------------------------------------------
# (the frame refuses a kernel without excess before any transformation; a loop without an
# uncoalesced load in a kernel that has one elsewhere is tests/cuda/test_cuda_redist.c's)
expect 11 "already coalesced" "$COALCHECK" fix --transform redistribute \
  --launch "$EX/gemv/cols.launch" -o "$TMP/cols" -q
[ ! -e "$TMP/cols" ] || fail "gemv_cols: DIR written for a refusal"
"$(find_nvcc)" -ptx -lineinfo -arch=sm_90 -o "$TMP/gemv.ptx" "$EX/gemv/gemv.cu" || fail "nvcc -ptx failed"
expect 11 "needs the kernel's CUDA C source" "$COALCHECK" fix --transform redistribute \
  "$TMP/gemv.ptx" --kernel gemv_rows --grid 4 --block 256 --arg 'A=f32[n*n]:random:21' \
  --arg 'x=f32[n]:random:22' --arg 'y=f32[n]:zero' --arg n=1024 -o "$TMP/ptx" -q

finish
