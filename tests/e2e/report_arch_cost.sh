#!/usr/bin/env bash
# The text report's cost column follows the model's transaction unit: 32-byte sectors on
# sm_90, the cc1.x/cc2.x transactions (segments, lines) on the older models, where no
# ideal in those units is shown. Skips without nvcc.
. "$(dirname "$0")/data/common.bash"
[ -n "$(find_nvcc)" ] || { echo "skip: nvcc not found"; exit 77; }
L="$COALCHECK_SRC/examples/strided_copy/stride2.launch"

# stride-2 float gather, out[i] = in[2 i]. sm_90: a warp's 32 loads span 256 bytes = 8
# sectors per request (ideal 4: 128 bytes requested); the store is contiguous, 4 sectors.
expect 0 "" "$COALCHECK" --launch "$L" -q
grep -Eq '^ +[0-9]+ +strided_copy\.cu:[0-9]+ +ld +global +4 +[0-9,]+ +8\.00 +4\.00 ' "$TMP/out" ||
  fail "sm_90: load row is not 8 sectors/request, ideal 4"
grep -qF "cost/req: 32-byte sectors" "$TMP/out" || fail "sm_90: footnote"

# cc1.0 (strict half-warp rule): the 16 lanes of a half-warp read words 2 apart, not the
# k-th word of one 64-byte segment, so the request is uncoalesced: one 32-byte transaction
# per active lane, 16 per (half-warp) request; the store's half-warp writes 16 consecutive
# words of one aligned 64-byte segment: 1 transaction per request.
expect 0 "" "$COALCHECK" --launch "$L" -q --arch cc1.0
grep -Eq '^ +[0-9]+ +strided_copy\.cu:[0-9]+ +ld +global +4 +[0-9,]+ +16\.00 +- ' "$TMP/out" ||
  fail "cc1.0: load row is not 16 transactions/request"
grep -Eq '^ +[0-9]+ +strided_copy\.cu:[0-9]+ +st +global +4 +[0-9,]+ +1\.00 +- ' "$TMP/out" ||
  fail "cc1.0: store row is not 1 transaction/request"
grep -qF "cost/req: transactions (global, local: cc1.0 rules)" "$TMP/out" || fail "cc1.0: footnote"
finish
