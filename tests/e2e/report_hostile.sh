#!/bin/bash
# `coalcheck report` on small, valid but hostile traces (issue 13): what the file declares
# is bounded by what the file can hold, the analyses' memory by --max-analysis-memory, and no
# kernel table costs n^2 time. The traces come from data/hostile_trace.py (hand-written
# zstd frames: one RLE block repeats a byte up to 128 KiB for 4 bytes of file).
. "$(dirname "$0")/data/common.bash"
GEN="$DATA/hostile_trace.py"
# peak RSS is measured when the binary is not built with AddressSanitizer (which maps
# terabytes of shadow and keeps freed memory in quarantine)
asan=0
ldd "$COALCHECK" 2>/dev/null | grep -q libasan && asan=1
[ -x /usr/bin/time ] || asan=1

# rss_below KB CMD...: CMD's peak resident set stays below KB kilobytes
rss_below() {
  local kb=$1 got
  shift
  [ "$asan" -eq 1 ] && return
  /usr/bin/time -f %M -o "$TMP/rss" "$@" >/dev/null 2>&1
  got=$(tail -n1 "$TMP/rss")
  [ "$got" -lt "$kb" ] || fail "$*: peak RSS $got KB, expected below $kb KB"
}

# 10^7 one-byte records, each 32 new scattered addresses: a 0.4 KB file that asked for
# ~3.5 KB of footprint per record (3.5 GB per 10^6 records before the limit existed)
python3 "$GEN" footprint "$TMP/fp.cctrace" 10000000
[ "$(stat -c %s "$TMP/fp.cctrace")" -lt 1024 ] || fail "the footprint trace is not small"
expect 6 "analysis memory limit of 64 MiB reached in kernel k" \
  "$COALCHECK" report "$TMP/fp.cctrace" --max-analysis-memory 64
grep -qF "$TMP/fp.cctrace: block 1 at offset " "$TMP/err" || fail "the limit names no offset"
grep -qF "raise it with --max-analysis-memory MIB" "$TMP/err" || fail "the limit says not what to do"
[ -s "$TMP/out" ] && fail "a report was printed after the memory limit"
# the limit is shared by the models of --arch
expect 6 "analysis memory limit of 32 MiB reached" \
  "$COALCHECK" report "$TMP/fp.cctrace" --max-analysis-memory 64 --arch cc1.0,sm_90
# 64 MiB of analyses, one chunk-array doubling over it, the reader's blocks, the program
rss_below 250000 "$COALCHECK" report "$TMP/fp.cctrace" --max-analysis-memory 64
expect 2 "bad value '0' for --max-analysis-memory" "$COALCHECK" report "$TMP/fp.cctrace" --max-analysis-memory 0

# a kernel table of 10^6 instructions in 0.5 KB (1.35 GB before): over the format's limit
python3 "$GEN" insns "$TMP/insns.cctrace" 1000000
expect 3 "is corrupt (bad record at byte 0 of its data: instruction count over the limit of 65536)" \
  "$COALCHECK" report "$TMP/insns.cctrace"
rss_below 100000 "$COALCHECK" report "$TMP/insns.cctrace"

# 10^5 kernels in one block (the writer opens a block for each table, so the number of
# kernels is bounded by the file's size, ~50 bytes each)
python3 "$GEN" kernels-one-block "$TMP/kernels.cctrace" 100000
expect 3 "is corrupt (bad record at byte 14 of its data: kernel table not at the start of its block)" \
  "$COALCHECK" report "$TMP/kernels.cctrace"
python3 "$GEN" kernels "$TMP/kernels2.cctrace" 3
expect 0 "" "$COALCHECK" report "$TMP/kernels2.cctrace"
[ "$(grep -c '^kernel k' "$TMP/out")" -eq 3 ] || fail "3 kernels in 3 blocks: not 3 reported"

# 65536 instructions that are each other's fields of one array of structures (n^2 pairs:
# hours before), and 65536 source lines (n^2 line lookups: half a minute before)
python3 "$GEN" fields "$TMP/fields.cctrace" 65536
expect 0 "" timeout 120 "$COALCHECK" report "$TMP/fields.cctrace" --top 1
grep -qF "32768 other" "$TMP/out" ||
  fail "fields: no AoS advice: $(head -n 20 "$TMP/out")"
python3 "$GEN" lines "$TMP/lines.cctrace" 65536
expect 0 "" timeout 120 "$COALCHECK" report "$TMP/lines.cctrace" --top 1
grep -qF "65,536 requests" "$TMP/out" || fail "lines: not 65536 requests: $(head -n 5 "$TMP/out")"

finish
