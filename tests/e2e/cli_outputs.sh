#!/bin/bash
# How outputs are written (util/fileio.h): a device, a FIFO and /dev/stdout in place; a
# symbolic link's target replaced, the link kept; an input never overwritten, whatever
# the spelling; and no temporary file left when `record` is stopped by SIGINT or SIGTERM
# (the exit status is then the signal's). No nvcc needed: kernels.ptx is PTX.
. "$(dirname "$0")/data/common.bash"
K="$DATA/kernels.ptx"
GOOD=("$COALCHECK" "$K" --kernel scale --grid 1 --block 32 --arg 'out=f32[n]:zero'
      --arg 'in=f32[n]:iota' --arg n=32 --arg a=2 -q)
REC=("$COALCHECK" record "$K" --kernel scale --grid 1 --block 32 --arg 'out=f32[n]:zero'
     --arg 'in=f32[n]:iota' --arg n=32 --arg a=2 -q)
SPIN=("$COALCHECK" record "$K" --kernel spin --grid 1 --block 32 --arg 'f=s32[1]:zero' -q)
left() { find "$1" -name '*.tmp.*' | head -n1; }

# ---- special files: written in place --------------------------------------------------
mkfifo "$TMP/fifo"
timeout 30 cat "$TMP/fifo" > "$TMP/from-fifo" &
reader=$!
expect 0 "" "${GOOD[@]}" --json "$TMP/fifo"
wait "$reader"
[ -p "$TMP/fifo" ] || fail "--json FIFO replaced the FIFO"
grep -q '"kernels"' "$TMP/from-fifo" || fail "the JSON did not go through the FIFO"
if [ "$(id -u)" -eq 0 ] && mknod "$TMP/null" c 1 3 2>/dev/null; then
  # root may rename over a device: a private copy of /dev/null stands for it
  expect 0 "" "${GOOD[@]}" --json "$TMP/null"
  [ -c "$TMP/null" ] || fail "--json on a character device (run as root) replaced it"
  expect 0 "" "${REC[@]}" -o "$TMP/null" 2>/dev/null
  [ -c "$TMP/null" ] || fail "record -o on a character device replaced it"
fi
[ -z "$(left "$TMP")" ] || fail "temporary file left: $(left "$TMP")"

# /dev/stdout: the open standard output is written (here a file the shell opened), not
# replaced by a new file; the text report follows the JSON into it
"${GOOD[@]}" --json /dev/stdout > "$TMP/both.txt" 2>"$TMP/err" ||
  fail "--json /dev/stdout failed: $(cat "$TMP/err")"
grep -q '"kernels"' "$TMP/both.txt" || fail "--json /dev/stdout: no JSON in standard output"
# record -o /dev/stdout: the trace on standard output, the summary on standard error
"${REC[@]}" -o /dev/stdout > "$TMP/spin.cctrace" 2>"$TMP/err" ||
  fail "record -o /dev/stdout failed: $(cat "$TMP/err")"
grep -q "^recorded /dev/stdout: " "$TMP/err" || fail "record -o /dev/stdout: summary not on stderr"
expect 0 "" "$COALCHECK" report "$TMP/spin.cctrace"

# ---- symbolic links: the target is replaced, the link stays ---------------------------
mkdir "$TMP/data"
echo old > "$TMP/data/r.json"
chmod 0640 "$TMP/data/r.json"
ln -s data/r.json "$TMP/link.json"
expect 0 "" "${GOOD[@]}" --json "$TMP/link.json"
[ -L "$TMP/link.json" ] || fail "--json through a symbolic link replaced the link"
grep -q '"kernels"' "$TMP/data/r.json" || fail "the link's target was not written"
[ "$(stat -c %a "$TMP/data/r.json")" = 640 ] || fail "the target lost its permission bits"
ln -s "$TMP/data/new.cctrace" "$TMP/dangling.cctrace"
expect 0 "" "${REC[@]}" -o "$TMP/dangling.cctrace"
[ -L "$TMP/dangling.cctrace" ] && [ -s "$TMP/data/new.cctrace" ] ||
  fail "record -o through a dangling link: link or target missing"
[ -z "$(left "$TMP")" ] || fail "temporary file left: $(left "$TMP")"

# ---- an input is never an output --------------------------------------------------------
cp "$K" "$TMP/k.ptx"
cp "$TMP/spin.cctrace" "$TMP/t.cctrace"
ln -s t.cctrace "$TMP/t-link"
ln "$TMP/t.cctrace" "$TMP/t-hard"
sum=$(md5sum < "$TMP/t.cctrace")
for out in "$TMP/t.cctrace" "$TMP/t-link" "$TMP/t-hard" "$TMP/./t.cctrace"; do
  # refused when the options are read (src/cli/paths.c); the writer checks again when it
  # opens the file (cc_outfile_open_except, tests/util/test_util.c)
  expect 2 "$out is INPUT $TMP/t.cctrace: writing it would destroy an input" \
    "$COALCHECK" report "$TMP/t.cctrace" --json "$out"
  [ -s "$TMP/out" ] && fail "report --json $out: a report was printed"
done
[ "$(md5sum < "$TMP/t.cctrace")" = "$sum" ] || fail "the input trace was changed"
ksum=$(md5sum < "$TMP/k.ptx")
expect 2 "-o $TMP/k.ptx is INPUT $TMP/k.ptx: writing it would destroy an input" \
  "$COALCHECK" record "$TMP/k.ptx" --kernel scale --grid 1 --block 32 \
  --arg 'out=f32[n]:zero' --arg 'in=f32[n]:iota' --arg n=32 --arg a=2 -q -o "$TMP/k.ptx"
GOODK=("$COALCHECK" "$TMP/k.ptx" "${GOOD[@]:2}")
expect 2 "$TMP/k.ptx is INPUT $TMP/k.ptx" "${GOODK[@]}" --trace "$TMP/k.ptx"
expect 2 "$TMP/k.ptx is INPUT $TMP/k.ptx" "${GOODK[@]}" --json "$TMP/k.ptx"
expect 2 "$TMP/k.ptx is INPUT $TMP/k.ptx" "${GOODK[@]}" --dump "out=$TMP/k.ptx"
# a file: initialiser is an input too (32 floats = 128 bytes)
head -c 128 /dev/zero > "$TMP/in.bin"
expect 2 "out=$TMP/in.bin is --arg in=...:file:$TMP/in.bin: writing it would destroy an input" \
  "$COALCHECK" "$K" --kernel scale --grid 1 --block 32 --arg 'out=f32[n]:zero' \
  --arg "in=f32[n]:file:$TMP/in.bin" --arg n=32 --arg a=2 -q --dump "out=$TMP/in.bin"
[ "$(md5sum < "$TMP/k.ptx")" = "$ksum" ] || fail "the input PTX was changed"
[ -z "$(left "$TMP")" ] || fail "temporary file left: $(left "$TMP")"

# ---- SIGINT / SIGTERM during record: no temporary file left -----------------------------
# set -m: background jobs get their own process group and keep SIGINT (a script's
# background jobs otherwise ignore it, and coalcheck leaves an ignored signal ignored)
set -m
mkdir "$TMP/sig"
for sig in INT TERM; do
  "${SPIN[@]}" -o "$TMP/sig/s.cctrace" &
  pid=$!
  for _ in $(seq 100); do # the temporary trace exists once the run has begun
    [ -n "$(left "$TMP/sig")" ] && break
    sleep 0.1
  done
  [ -n "$(left "$TMP/sig")" ] || fail "SIG$sig: record wrote no temporary trace"
  sleep 0.3
  kill -s "$sig" "$pid"
  wait "$pid"
  rc=$?
  want=$((128 + $(kill -l "$sig")))
  [ "$rc" -eq "$want" ] || fail "record stopped by SIG$sig exited $rc, expected $want"
  [ -z "$(ls -A "$TMP/sig")" ] || fail "SIG$sig left files behind: $(ls -A "$TMP/sig")"
done
set +m

finish
