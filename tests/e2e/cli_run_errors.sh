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

# the buffers' memory is capped (--max-memory, default half the machine's memory): 2^34
# floats = 64 GiB used to abort (exit 134) where malloc failed; 2^30 floats = 4 GiB and
# 32 more (4 GiB + 128 bytes) against a limit of 4 GiB + 127 bytes are refused before
# anything is allocated
# scale SIZE OPTIONS...: scale with an out buffer of SIZE floats and 32 in
scale() {
  "$COALCHECK" "$K" --kernel scale --grid 1 --block 32 --arg "out=f32[$1]:zero" \
    --arg 'in=f32[32]:iota' --arg n=32 --arg a=2 -q "${@:2}"
}
# the default, half the machine's memory, is below 2^58 floats = 1 EiB
expect 6 "argument 1 'out' needs 1152921504606846976 bytes (1.0 EiB), which brings the buffers to" \
  scale '0x400000000000000'
expect 6 "above the limit of 68719476735 bytes (64.0 GiB) of emulated memory; use smaller sizes, or raise the limit with --max-memory" \
  scale '16*1024*1024*1024' --max-memory 68719476735
expect 6 "argument 2 'in' needs 128 bytes, which brings the buffers to 4294967424 bytes (4.0 GiB), above the limit of 4294967423 bytes" \
  scale '1024*1024*1024' --max-memory 4294967423
# within the limit but more than the host can give (512 GiB; only where the kernel refuses
# such a request: overcommit heuristic or strict): an error, not an abort
if [ "$(cat /proc/sys/vm/overcommit_memory 2>/dev/null)" != 1 ]; then
  ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}allocator_may_return_null=1" \
    expect 6 "cannot allocate 549755813888 bytes of host memory for buffer 'out': out of memory" \
    scale '128*1024*1024*1024' --max-memory 1T
fi

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
# a write that fails says why: a 1 KiB file size limit (SIGXFSZ ignored, so write(2) fails
# with EFBIG) against a 64 KiB dump (the report goes to /dev/null, which has no size)
(trap '' XFSZ; ulimit -f 1
 exec "$COALCHECK" "$K" --kernel scale --grid 1 --block 32 --arg 'out=f32[16384]:zero' \
   --arg 'in=f32[32]:iota' --arg n=32 --arg a=2 -q --dump "out=$TMP/big.bin") \
  >/dev/null 2>"$TMP/err"
rc=$?
[ "$rc" = 7 ] || fail "a dump past the file size limit exited $rc, expected 7"
grep -qF "cannot dump buffer 'out': cannot write $TMP/big.bin: File too large" "$TMP/err" ||
  fail "the dump failure does not say why: $(cat "$TMP/err")"
[ -e "$TMP/big.bin" ] && fail "a partial dump was left"
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
