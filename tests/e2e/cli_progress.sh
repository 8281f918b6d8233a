#!/bin/bash
# Long emulated runs (issue 13 item 8): progress on standard error (CTAs done / total, warp
# instructions, rate, time), none with -q; the default instruction budget is per block, so
# a block that never ends stops after 2^26 warp instructions (seconds), not after the
# former launch-wide 2^34 (tens of minutes), and the message says how to raise it.
. "$(dirname "$0")/data/common.bash"
K="$DATA/kernels.ptx"
SPIN=("$COALCHECK" "$K" --kernel spin --grid 1 --block 32 --arg 'f=s32[1]:zero')

# progress at once (COALCHECK_PROGRESS_SECONDS, a testing knob): 2^22 warp instructions
# give the interpreter four chances to look at the clock (every 2^20); off a terminal each
# report is a line of its own, and a last one says the run stopped
# (expect wants the error first: run by hand)
run() { COALCHECK_PROGRESS_SECONDS=0.000001 "$@" >"$TMP/out" 2>"$TMP/err"; echo $?; }
rc=$(run "${SPIN[@]}" --max-insns 4194304)
[ "$rc" = 6 ] || fail "the spin with --max-insns exited $rc, expected 6"
grep -q '^coalcheck: error: instruction budget exhausted after 4194304 ' "$TMP/err" ||
  fail "no budget error: $(cat "$TMP/err")"
grep -q '^coalcheck: spin: 0/1 blocks, [0-9.]* M warp instructions, [0-9.]* M/s, [0-9.]* s$' \
  "$TMP/err" || fail "no progress line: $(cat "$TMP/err")"
[ "$(grep -c '^coalcheck: spin: 0/1 blocks' "$TMP/err")" -ge 3 ] ||
  fail "fewer than 3 progress lines within the spinning block: $(cat "$TMP/err")"
grep -q '^coalcheck: spin: 0/1 blocks, 4.2 M warp instructions, .*: stopped$' "$TMP/err" ||
  fail "no final 'stopped' line: $(cat "$TMP/err")"
grep -q $'\r' "$TMP/err" && fail "carriage returns in progress off a terminal"
# progress lines come before the error, which stays the last line
tail -n1 "$TMP/err" | grep -q '^coalcheck: error: ' || fail "the error is not the last line"
# -q: none
COALCHECK_PROGRESS_SECONDS=0.000001 expect 6 "" "${SPIN[@]}" --max-insns 4194304 -q
grep -q 'blocks,' "$TMP/err" && fail "progress shown with -q: $(cat "$TMP/err")"
# a finished run with progress ends with "done": 4 blocks of the scale kernel
rc=$(run "$COALCHECK" "$K" --kernel scale --grid 4 --block 32 --arg 'out=f32[n]:zero' \
  --arg 'in=f32[n]:iota' --arg n=128 --arg a=2)
[ "$rc" = 0 ] || fail "the scale run exited $rc: $(cat "$TMP/err")"
grep -q '^coalcheck: scale: 4/4 blocks, .*: done$' "$TMP/err" ||
  fail "no final 'done' line: $(cat "$TMP/err")"
# runs shorter than the default delay (2 s) show nothing
expect 0 "" "$COALCHECK" "$K" --kernel scale --grid 4 \
  --block 32 --arg 'out=f32[n]:zero' --arg 'in=f32[n]:iota' --arg n=128 --arg a=2
[ -s "$TMP/err" ] && fail "a short run printed to stderr: $(cat "$TMP/err")"

# the default budget: a block of 64 threads branching to itself forever stops after 2^26
# warp instructions (its floor; 2^17 per thread is less) in seconds; the limit error names
# the block's budget and --max-insns for the whole launch (4 blocks: 4 x 2^26 = 268435456)
cat > "$TMP/loop.ptx" <<'PTX'
.version 9.0
.target sm_90
.address_size 64
.visible .entry loop()
{
$L_top:
	bra.uni $L_top;
}
PTX
SECONDS=0
timeout 300 "$COALCHECK" "$TMP/loop.ptx" --grid 4 --block 64 -q >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" = 6 ] || fail "the endless loop exited $rc, expected 6 (124: still running after 300 s)"
echo "endless loop stopped after $SECONDS s"
for part in "instruction budget exhausted after 67108864 warp instructions in warp" \
            "of block (0,0,0)" "the block ran its default budget of 67108864 warp instructions" \
            "raise the limit with --max-insns N, a budget for the whole launch" \
            "the default allows 268435456 for its 4 blocks"; do
  grep -qF -- "$part" "$TMP/err" || fail "the budget message lacks '$part': $(cat "$TMP/err")"
done
finish
