#!/usr/bin/env bash
# Kernel mode's launch selection (src/cli/select.c over src/gpu/filter.c; ncu's spellings)
# on tests/e2e/data/select.ptx: its kernels in PTX order, one launch each:
#   0 scale_a        function "scale_a"
#   1 scale_b        function "scale_b"  (reads and writes every second float)
#   2 _ZN2ns5tiledILi32EEEvPfPKfif = void ns::tiled<32>(float*, float const*, int, float),
#                    function "tiled", reported as "ns::tiled<32>"
# With n = 32, grid 1, block 32 (one warp, all lanes active) each kernel makes one load
# and one store request: 2 requests. scale_a and tiled: 128 contiguous bytes per access
# = 4 sectors: 8 sectors, 0 excess. scale_b: lanes 8 bytes apart span 256 bytes = 8
# sectors, ideal ceil(128/32) = 4: 16 sectors, 8 excess.
source "$(dirname "$0")/data/common.bash"
P="$COALCHECK_SRC/tests/e2e/data/select.ptx"
A=(--grid 1 --block 32 --arg 'out=f32[2*n]:zero' --arg 'in=f32[2*n]:iota' --arg n=32 --arg a=2 -q)
unset COALCHECK_KERNEL_NAME COALCHECK_KERNEL_NAME_BASE COALCHECK_KERNEL_ID \
  COALCHECK_LAUNCH_SKIP COALCHECK_LAUNCH_COUNT COALCHECK_KERNEL_REGEX

# picks SEL... EXPECTED: the kernels of the report, as "name:requests:sectors:excess"
picks() {
  local want=$1 got
  shift
  "$COALCHECK" "$P" "${A[@]}" --json "$TMP/s.json" "$@" >/dev/null 2>"$TMP/err" ||
    { fail "$* failed: $(cat "$TMP/err")"; return; }
  got=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(' '.join('%s:%d:%d:%d' % (k['name'], k['totals']['requests'], k['totals']['sectors'], k['totals']['excess_sectors']) for k in d['kernels']))" "$TMP/s.json")
  [ "$got" = "$want" ] || fail "$*: selected '$got', expected '$want'"
}
SA=scale_a:2:8:0 SB=scale_b:2:16:8 TI='ns::tiled<32>:2:8:0'
picks "$SB" --kernel-name scale_b
picks "$SA $SB" --kernel-name 'regex:^scale'
picks "$SB" --kernel-name 'regex:scale' --launch-skip 1
picks "$SA $SB" --launch-count 2
picks "$TI" --launch-skip 2
picks "$SB" --launch-skip 1 --launch-count 1
picks "$TI" --kernel-name tiled                    # the function base: no scope, no <32>
picks "$TI" --kernel-name-base demangled --kernel-name 'regex:^void ns::tiled<32>\('
picks "$TI" --kernel-name-base mangled --kernel-name _ZN2ns5tiledILi32EEEvPfPKfif
picks "$SB" --kernel-id ::scale_b:1
picks "$SA $SB $TI" --kernel-id :::1
picks "$SA $TI" --kernel-id '::regex:^(scale_a|tiled)$:'
# the variables of old and new, when no option is given; an option replaces them all
COALCHECK_KERNEL_REGEX='_b$' picks "$SB"
COALCHECK_LAUNCH_SKIP=1 COALCHECK_LAUNCH_COUNT=1 picks "$SB"
COALCHECK_KERNEL_NAME=tiled picks "$TI"
COALCHECK_KERNEL_NAME=scale_a picks "$SB" --kernel-name scale_b
# several kernels in one record + report
"$COALCHECK" record "$P" "${A[@]}" --kernel-name 'regex:^scale' -o "$TMP/t.cctrace" >/dev/null 2>&1 ||
  fail "record of a selection failed"
"$COALCHECK" report "$TMP/t.cctrace" -q --json "$TMP/r.json" >/dev/null 2>&1 || fail "report failed"
jcheck "$TMP/r.json" '[k["name"] for k in d["kernels"]] == ["scale_a", "scale_b"]'

# bad input
expect 3 "selects none of the kernels" "$COALCHECK" "$P" "${A[@]}" --kernel-name ns::tiled
expect 3 "selects none of the kernels" "$COALCHECK" "$P" "${A[@]}" --kernel-id ::scale_b:2
expect 2 "--launch-count 0 selects no launch" "$COALCHECK" "$P" "${A[@]}" --launch-count 0
expect 2 "--kernel-name 'a(b' does not compile at position 2" "$COALCHECK" "$P" "${A[@]}" \
  --kernel-name 'regex:a(b'
expect 2 "contexts and streams" "$COALCHECK" "$P" "${A[@]}" --kernel-id 1:7:scale_a:1
expect 2 "--kernel-name-base 'short'" "$COALCHECK" "$P" "${A[@]}" --kernel-name-base short
expect 2 "both select kernels" "$COALCHECK" "$P" "${A[@]}" --kernel scale_a --kernel-name scale_a
expect 2 "--dump with a selection of 2 launches" "$COALCHECK" "$P" "${A[@]}" \
  --kernel-name 'regex:^scale' --dump "out=$TMP/o.bin"
expect 2 "--backend gpu with a KERNEL.cu or .ptx runs one launch" "$COALCHECK" "$P" "${A[@]}" \
  --backend gpu --kernel scale_a --launch-count 1
expect 2 "--launch-skip is not" "$COALCHECK" "$P" "${A[@]}" --launch-skip x

[ "$fails" -eq 0 ] || exit 1
echo "ok: launch selection in kernel mode"
