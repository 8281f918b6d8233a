#!/bin/bash
# Errors of the emulated run and of the outputs: unsupported instruction (4), out-of-bounds
# access (5), instruction budget (6), unwritable outputs (7), trap (9).
. "$(dirname "$0")/data/common.bash"
K="$DATA/kernels.ptx"
ONE=(--grid 1 --block 1 --arg 'a=u8[1]:zero')

expect 4 "unsupported.ptx:13: unsupported instruction 'tld4.r.2d.v4.f32.f32'" \
  "$COALCHECK" "$DATA/unsupported.ptx" "${ONE[@]}"
[ -s "$TMP/out" ] && fail "a report was printed for an unsupported kernel"

# oob(float *out): out[threadIdx.x + 1] = 1; 32 threads, 32 floats: thread 31 writes the
# 4 bytes just past the end, at buffer + 128
expect 5 "invalid global write of size 4" "$COALCHECK" "$K" --kernel oob --grid 1 --block 32 \
  --arg 'out=f32[32]:zero'
for part in "by thread (31,0,0) in block (0,0,0)" "kernel oob" "PTX line" "st.global" \
            "0 bytes after the end of buffer 'out'" "128 bytes"; do
  grep -qF -- "$part" "$TMP/err" || fail "the memcheck message lacks '$part': $(cat "$TMP/err")"
done
grep -q '0x[0-9a-f]' "$TMP/err" || fail "the memcheck message has no address"

# spin waits for a flag that stays 0
expect 6 "instruction budget exhausted after 1000 warp instructions" \
  "$COALCHECK" "$K" --kernel spin --grid 1 --block 32 --arg 'f=s32[1]:zero' --max-insns 1000
grep -qF -- "--max-insns" "$TMP/err" || fail "the budget message does not name --max-insns"

expect 9 "trap" "$COALCHECK" "$DATA/trap.ptx" "${ONE[@]}"

# outputs: an unwritable --json fails before the run and leaves nothing behind
GOOD=("$COALCHECK" "$K" --kernel scale --grid 1 --block 32 --arg 'out=f32[n]:zero'
      --arg 'in=f32[n]:iota' --arg n=32 --arg a=2 -q)
mkdir "$TMP/ro"
chmod 0555 "$TMP/ro"
if [ -w "$TMP/ro" ]; then
  echo "note: running as a user who can write anywhere; the read-only folder case is skipped"
else
  expect 7 "cannot write $TMP/ro/r.json" "${GOOD[@]}" --json "$TMP/ro/r.json"
  [ -z "$(ls -A "$TMP/ro")" ] || fail "files left in the read-only folder: $(ls -A "$TMP/ro")"
fi
expect 7 "cannot write $TMP/nodir/r.json" "${GOOD[@]}" --json "$TMP/nodir/r.json"
[ -s "$TMP/out" ] && fail "a report was printed although --json could not be written"
expect 7 "cannot dump buffer 'out'" "${GOOD[@]}" --dump "out=$TMP/nodir/out.bin"
[ -e "$TMP/nodir" ] && fail "a dump folder appeared"
# a path that is a folder: the JSON is written to a temporary file first and the final
# rename fails; the temporary file must be gone and the report not printed
mkdir "$TMP/isdir"
expect 7 "cannot write $TMP/isdir" "${GOOD[@]}" --json "$TMP/isdir"
[ -z "$(ls -A "$TMP/isdir")" ] || fail "the folder was written into"
[ -s "$TMP/out" ] && fail "a text report was printed although --json failed"
# a run that fails leaves no --json file either
expect 5 "invalid global write" "$COALCHECK" "$K" --kernel oob --grid 1 --block 32 \
  --arg 'out=f32[32]:zero' --json "$TMP/m.json"
[ -e "$TMP/m.json" ] && fail "a JSON report was left by a failed run"
# a full standard output (the report cannot be written) is an output failure too
if [ -w /dev/full ]; then
  "${GOOD[@]}" >/dev/full 2>"$TMP/err"
  rc=$?
  [ "$rc" = 7 ] || fail "a report into /dev/full exited $rc, expected 7"
  grep -q '^coalcheck: error: cannot write' "$TMP/err" || fail "no write error: $(cat "$TMP/err")"
  # --version's one line is caught by the dispatcher's final flush (src/cli/cli.c)
  "$COALCHECK" --version >/dev/full 2>"$TMP/err"
  rc=$?
  [ "$rc" = 7 ] || fail "--version into /dev/full exited $rc, expected 7"
  grep -q '^coalcheck: error: cannot write to standard output: No space left on device' \
    "$TMP/err" || fail "no write error for --version: $(cat "$TMP/err")"
fi
ls "$TMP" | grep -q '\.tmp\.' && fail "temporary files left: $(ls "$TMP")"
finish
