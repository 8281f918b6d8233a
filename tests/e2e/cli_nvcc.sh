#!/bin/bash
# .cu inputs through nvcc: a compile error (exit 8, nvcc's message shown), bad --nvcc-flags
# (8 from nvcc, 2 for bad quoting), and a good compile. Skips without nvcc.
. "$(dirname "$0")/data/common.bash"
[ -n "$(find_nvcc)" ] || { echo "skip: nvcc not found"; exit 77; }
ONE=(--grid 1 --block 1 --arg 'a=s32[1]:zero')

expect 8 "nvcc failed on $DATA/syntax_error.cu (exit status 1):" \
  "$COALCHECK" "$DATA/syntax_error.cu" "${ONE[@]}"
grep -qF "expected an expression" "$TMP/err" || fail "nvcc's own message is not shown"
expect 8 "Unknown option '--no-such-nvcc-flag'" \
  "$COALCHECK" "$DATA/kernels.cu" --kernel oob --grid 1 --block 32 --arg 'o=f32[33]:zero' \
  --nvcc-flags '--no-such-nvcc-flag'
expect 2 "--nvcc-flags:1:1: unterminated double quote" \
  "$COALCHECK" "$DATA/kernels.cu" --kernel oob --grid 1 --block 32 --nvcc-flags '"-O3'
# a good compile: oob writes out[1..32], so 33 floats fit; -DUNUSED reaches nvcc harmlessly
expect 0 "" "$COALCHECK" "$DATA/kernels.cu" --kernel oob --grid 1 --block 32 \
  --arg 'o=f32[33]:zero' --nvcc-flags '-DUNUSED=1 -O3' --dump "o=$TMP/o.bin" -q
[ "$(stat -c %s "$TMP/o.bin")" = 132 ] || fail "dump of 33 floats is not 132 bytes"
grep -q 'kernels.cu' "$TMP/out" || fail "the report does not name the .cu source lines"
# kernel names: two instantiations of ns::tiled
T=("$COALCHECK" "$DATA/templates.cu" --grid 1 --block 32 --arg 'a=f32[64]:zero' -q)
expect 3 "kernel name 'tiled' is ambiguous" "${T[@]}" --kernel tiled
grep -qF "ns::tiled<1> (_ZN2ns5tiledILi1EEEvPf), ns::tiled<2> (_ZN2ns5tiledILi2EEEvPf)" "$TMP/err" ||
  fail "the ambiguity message does not list both: $(cat "$TMP/err")"
expect 3 "no kernel called 'tilde'" "${T[@]}" --kernel tilde
expect 0 "" "${T[@]}" --kernel 'tiled<2>'
grep -qF "ns::tiled<2>" "$TMP/out" || fail "the report does not name ns::tiled<2>"
expect 0 "" "${T[@]}" --kernel 'ns::tiled<1>'
expect 0 "" "${T[@]}" --kernel _ZN2ns5tiledILi2EEEvPf
ls "${TMPDIR:-/tmp}" | grep -q "^coalcheck-" && echo "note: coalcheck-* temporary folders exist (maybe other runs)"
finish
