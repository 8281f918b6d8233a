#!/bin/bash
# `coalcheck record` and `coalcheck report`, several --arch on the main command, --trace.
# The kernel is examples/transpose's naive transpose (naive.launch: n = 1024, grid 32 x 128,
# block 32 x 8), so this needs nvcc (skipped without it). Expected figures are derived by
# hand in the comments; the model rules are ../../../shared/MODELS.md's.
#
# The run: 32 x 128 = 4096 CTAs x (32*8/32 =) 8 warps = 32768 warps; each runs the load
# in[y*n + x] once and the store out[x*n + y] once: 65536 warp records in the trace.
# Load, one warp: 32 consecutive floats, 128 bytes at a multiple of 128 (the buffers are
# 256-byte aligned, row y*n*4 a multiple of 4096, x from blockIdx.x*32):
#   sm_90: 1 request, 128/32 = 4 sectors; 32768 requests, 131072 sectors, 4194304 bytes.
#   cc1.0, cc1.2: per half-warp 16 consecutive aligned words = one 64-byte transaction;
#     2 requests per warp: 65536 requests, 65536 transactions, 65536*64 = 4194304 bytes.
#   cc2.0: with L1 (--l1-cache on) one 128-byte line per request: 1.00 trans/req;
#     without (off) one transaction per 32-byte segment: 128/32 = 4.00 trans/req;
#     4194304 bytes either way.
# Store, one warp: 32 floats 4n = 4096 bytes apart, one per lane:
#   sm_90: 32 sectors per request; 32768 * 32 = 1048576 sectors.
#   cc1.0: per half-warp not coalesced (k-th lane not at k-th word): 16 transactions of 32
#     bytes; 65536 requests, 1048576 transactions, 1048576 * 32 = 33554432 bytes, 16.00/req.
#   cc1.2: each lane alone in its 128-byte segment, 4 bytes used, shrunk to 32 bytes: the
#     same 16 x 32 bytes per half-warp.
. "$(dirname "$0")/data/common.bash"
[ -n "$(find_nvcc)" ] || { echo "skip: nvcc not found"; exit 77; }
LAUNCH="$COALCHECK_SRC/examples/transpose/naive.launch"
T="$TMP/naive.cctrace"

# JSON check: python3 EXPR over the document d; fails the test when EXPR is not true
jcheck() {
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" \
    "$1" || fail "$1: not true: $2"
}

# ---- record ----------------------------------------------------------------------------
expect 0 "" "$COALCHECK" record --launch "$LAUNCH" -o "$T" -q
[ -s "$T" ] || fail "record wrote no trace"
size=$(stat -c %s "$T")
# bytes/record = size / 65536, two decimals
bpr=$(python3 -c "print('%.2f' % ($size / 65536))")
grep -qxF "recorded $T: 65536 records, $size bytes, $bpr bytes/record" "$TMP/out" ||
  fail "record's summary: '$(cat "$TMP/out")', expected 65536 records, $size bytes, $bpr"
[ "$(head -c4 "$T" | od -An -tx1 | tr -d ' ')" = 89434354 ] || fail "no trace magic"

# -o -: the trace on standard output, the summary on standard error; it reports as the
# file does
"$COALCHECK" record --launch "$LAUNCH" -o - -q > "$TMP/stdout.cctrace" 2> "$TMP/err" ||
  fail "record -o - failed: $(cat "$TMP/err")"
grep -qxF "recorded -: 65536 records" "$TMP/err" || fail "record -o - summary: $(cat "$TMP/err")"
expect 0 "" "$COALCHECK" report "$TMP/stdout.cctrace" --arch cc1.0,sm_90
cp "$TMP/out" "$TMP/stdout-report.txt"
expect 0 "" "$COALCHECK" report "$T" --arch cc1.0,sm_90
cmp -s "$TMP/out" "$TMP/stdout-report.txt" || fail "the trace of record -o - reports otherwise"

# default name: <kernel>.cctrace in the current folder
mkdir "$TMP/d"
(cd "$TMP/d" && "$COALCHECK" record --launch "$LAUNCH" -q >/dev/null 2>&1) ||
  fail "record without -o failed"
[ -s "$TMP/d/transpose_naive.cctrace" ] || fail "no transpose_naive.cctrace: $(ls "$TMP/d")"

# report options in the launch file are ignored by record; on its command line refused
cp "$LAUNCH" "$TMP/with-report-opts.launch"
sed -i "s|^transpose.cu|$COALCHECK_SRC/examples/transpose/transpose.cu|" \
  "$TMP/with-report-opts.launch"
echo "--arch cc1.0 --top 1 --json never.json" >> "$TMP/with-report-opts.launch"
expect 0 "" "$COALCHECK" record --launch "$TMP/with-report-opts.launch" -o "$TMP/w.cctrace" -q
[ -e "$TMP/never.json" ] && fail "record wrote the launch file's --json"
expect 2 "option '--json' is not an option of 'coalcheck record'" \
  "$COALCHECK" record --launch "$LAUNCH" -o "$TMP/x.cctrace" --json "$TMP/x.json"
grep -qF "coalcheck record --help" "$TMP/err" || fail "the hint does not name record --help"
expect 2 "option '--arch' is not an option of 'coalcheck record'" \
  "$COALCHECK" record --launch "$LAUNCH" --arch cc1.0
# an unwritable trace: exit 7, nothing left; a failing kernel: no trace either
expect 7 "/nonexistent/dir/t.cctrace" \
  "$COALCHECK" record --launch "$LAUNCH" -o /nonexistent/dir/t.cctrace -q
expect 5 "invalid global write" "$COALCHECK" record "$DATA/kernels.ptx" --kernel oob \
  --grid 1 --block 32 --arg 'o=f32[32]:zero' -o "$TMP/oob.cctrace" -q
[ -e "$TMP/oob.cctrace" ] && fail "a failed run left its trace"
ls "$TMP" | grep -q '\.tmp\.' && fail "temporary files left: $(ls "$TMP")"

# ---- report, one arch: the main command's report -----------------------------------------
# the same report but for the emulator's counters and wall time (a measurement of the
# run, not of the trace: the main command's "emulated ..." line and JSON "emulator"
# member; a replay has none) and for what the static analysis of the PTX adds (a trace
# holds no PTX: the "address" lines and JSON "affine" members, and the advice they
# decide; the replay's advice is the dynamic one)
# without_static FILE: the text report less the address and advice blocks (a block's
# continuation lines are indented 13 blanks)
without_static() {
  awk '/^     [a-z]+ / { skip = ($1 == "address" || $1 == "advice") }
       /^             / { if (skip) next; print; next }
       /^     [a-z]+ / { if (skip) next }
       { skip = skip && /^             /; print }' "$1"
}
expect 0 "" "$COALCHECK" --launch "$LAUNCH" -q --json "$TMP/main.json"
grep -q '^     address out + 4\*n\*tid.x + 4\*tid.y' "$TMP/out" ||
  fail "the main command shows no address form for the store"
grep -v '^  emulated .* thread-instructions in ' "$TMP/out" > "$TMP/main.full.txt"
without_static "$TMP/main.full.txt" > "$TMP/main.txt"
expect 0 "" "$COALCHECK" report "$T" --json "$TMP/rep.json"
grep -q '^  emulated ' "$TMP/out" && fail "a replay claims emulator counters"
grep -q '^     address ' "$TMP/out" && fail "a replay claims address forms"
without_static "$TMP/out" > "$TMP/rep.txt"
cmp -s "$TMP/rep.txt" "$TMP/main.txt" || fail "report's text differs from the main command's"
python3 -c "
import json,sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
for k in a['kernels']: k.pop('emulator', None)
for d, affine in ((a, True), (b, False)):
  for k in d['kernels']:
    for i in k['instructions']:
      if (i.pop('affine') is not None) != affine: sys.exit(1)
      i.pop('suggestions')
sys.exit(a != b)" "$TMP/main.json" "$TMP/rep.json" ||
  fail "report's JSON differs from the main command's"
jcheck "$TMP/rep.json" "[(i['op'], i['requests'], i['sectors']) \
  for i in d['kernels'][0]['instructions']] == [('store', 32768, 1048576), ('load', 32768, 131072)]"
expect 0 "" "$COALCHECK" report "$T" --top 1
grep -q 'st.global' "$TMP/out" || fail "--top 1 lost the worst instruction (the store)"
grep -q 'ld.global' "$TMP/out" && fail "--top 1 kept the load"

# ---- report, three archs: side by side ----------------------------------------------------
expect 0 "" "$COALCHECK" report "$T" --arch cc1.0,cc1.2,sm_90 --json "$TMP/cmp.json"
grep -q 'models cc1.0, cc1.2, sm_90' "$TMP/out" || fail "no comparison header"
# rows: arch, requests, trans/req, bytes moved (load first: program order)
grep -qE '^  cc1\.0 +65536 +1\.00 +4194304 ' "$TMP/out" || fail "cc1.0 load row"
grep -qE '^  cc1\.2 +65536 +1\.00 +4194304 ' "$TMP/out" || fail "cc1.2 load row"
grep -qE '^  sm_90 +32768 +4\.00 +4194304 ' "$TMP/out" || fail "sm_90 load row"
grep -qE '^  cc1\.0 +65536 +16\.00 +33554432 ' "$TMP/out" || fail "cc1.0 store row"
grep -qE '^  sm_90 +32768 +32\.00 +33554432 ' "$TMP/out" || fail "sm_90 store row"
jcheck "$TMP/cmp.json" \
  "d['document'] == 'coalcheck-compare' and d['arch'] == ['cc1.0', 'cc1.2', 'sm_90']"
LD="[i for i in d['kernels'][0]['instructions'] if i['op'] == 'load'][0]['models']"
ST="[i for i in d['kernels'][0]['instructions'] if i['op'] == 'store'][0]['models']"
jcheck "$TMP/cmp.json" "$LD['sm_90']['transactions_per_request'] == 4"
jcheck "$TMP/cmp.json" "all($LD[a]['requests'] == 65536 and $LD[a]['transactions'] == 65536 \
  and $LD[a]['bytes_transferred'] == 4194304 for a in ('cc1.0', 'cc1.2'))"
jcheck "$TMP/cmp.json" "$ST['cc1.0']['transactions'] == 1048576 and \
  $ST['cc1.0']['bytes_transferred'] == 1048576 * 32 and \
  $ST['cc1.0']['transactions_per_request'] == 16"
jcheck "$TMP/cmp.json" "$ST['sm_90']['transactions'] == 1048576"
# --top does not shorten a comparison; a repeated --arch is the same list
expect 0 "" "$COALCHECK" report "$T" --arch cc1.0 --arch cc1.2 --arch sm_90 --top 1
grep -q 'ld.global' "$TMP/out" || fail "--top 1 shortened the comparison"

# --l1-cache: cc2.0's load is 1 line per request with L1, 4 segments without
expect 0 "" "$COALCHECK" report "$T" --arch cc2.0,sm_90 --l1-cache on
grep -qE '^  cc2\.0 +32768 +1\.00 +4194304 ' "$TMP/out" || fail "cc2.0 load with L1"
expect 0 "" "$COALCHECK" report "$T" --arch cc2.0,sm_90 --l1-cache off
grep -qE '^  cc2\.0 +32768 +4\.00 +4194304 ' "$TMP/out" || fail "cc2.0 load without L1"

# ---- report errors: exit code, message, and nothing on standard output -------------------
# block 1 starts after the header: 16 + H (u32 at offset 12) + 4 (header crc); its stored
# size is the u32 at block offset 8, its data at block offset 20 (docs/trace-format.md)
read -r b1 stored < <(python3 -c "
import struct,sys; d=open(sys.argv[1],'rb').read(); h=struct.unpack_from('<I',d,12)[0]
b=16+h+4; print(b, struct.unpack_from('<I',d,b+8)[0])" "$T")
python3 -c "
import sys; d=bytearray(open(sys.argv[1],'rb').read()); d[int(sys.argv[2])]^=0xff
open(sys.argv[3],'wb').write(d)" "$T" $((b1 + 20 + stored / 2)) "$TMP/corrupt.cctrace"
expect 3 "corrupt.cctrace: block 1 at offset $b1 is corrupt" \
  "$COALCHECK" report "$TMP/corrupt.cctrace" --json "$TMP/c.json"
[ -s "$TMP/out" ] && fail "a corrupt trace printed a report"
[ -e "$TMP/c.json" ] && fail "a corrupt trace left --json"
# cut inside block 1, and cut off only the end marker (20-byte header + 40 bytes): every
# record was replayed, but the trace is incomplete, so no report either
head -c $((b1 + 20 + stored / 2)) "$T" > "$TMP/cut1.cctrace"
expect 3 "truncated" "$COALCHECK" report "$TMP/cut1.cctrace" --arch cc1.0,sm_90
[ -s "$TMP/out" ] && fail "a trace cut in block 1 printed a report"
head -c $((size - 60)) "$T" > "$TMP/cut2.cctrace"
expect 3 "cut2.cctrace" "$COALCHECK" report "$TMP/cut2.cctrace"
[ -s "$TMP/out" ] && fail "a trace without its end marker printed a report"
expect 3 "cannot read $TMP/missing.cctrace" "$COALCHECK" report "$TMP/missing.cctrace"
expect 3 "not a coalcheck trace" "$COALCHECK" report "$LAUNCH"
expect 2 "no trace given" "$COALCHECK" report
expect 2 "two inputs given: '$T' and '$T'; pass one FILE.cctrace" "$COALCHECK" report "$T" "$T"
expect 2 "unknown architecture 'sm_99'" "$COALCHECK" report "$T" --arch cc1.0,sm_99
expect 2 "architecture sm_90 is named twice" "$COALCHECK" report "$T" --arch sm_90 --arch sm_90
expect 2 "empty name in architecture list" "$COALCHECK" report "$T" --arch cc1.0,,sm_90
expect 2 "bad value 'maybe' for --l1-cache" "$COALCHECK" report "$T" --l1-cache maybe
expect 2 "bad value '2' for --smem-bank-width" "$COALCHECK" report "$T" --smem-bank-width 2
expect 2 "8 is not available on sm_90" "$COALCHECK" report "$T" --smem-bank-width 8
expect 2 "option '--grid' is not an option of 'coalcheck report'" \
  "$COALCHECK" report "$T" --grid 1
expect 2 "option '--launch' is not an option of 'coalcheck report'" \
  "$COALCHECK" report --launch "$LAUNCH"
expect 7 "/nonexistent/dir/r.json" "$COALCHECK" report "$T" --json /nonexistent/dir/r.json
[ -s "$TMP/out" ] && fail "an unwritable --json still printed a report"

# ---- the main command: several --arch, --trace ---------------------------------------------
expect 0 "" "$COALCHECK" --launch "$LAUNCH" -q --arch cc1.0,sm_90 --trace "$TMP/main.cctrace"
grep -q 'models cc1.0, sm_90' "$TMP/out" || fail "main --arch cc1.0,sm_90: no comparison"
grep -qE '^  cc1\.0 +65536 +16\.00 +33554432 ' "$TMP/out" || fail "main: cc1.0 store row"
cp "$TMP/out" "$TMP/main-cmp.txt"
expect 0 "" "$COALCHECK" report "$TMP/main.cctrace" --arch cc1.0,sm_90
cmp -s "$TMP/out" "$TMP/main-cmp.txt" || fail "report of --trace differs from the main command"
expect 0 "" "$COALCHECK" --launch "$LAUNCH" -q --arch cc1.0 --arch sm_90 --json "$TMP/m.json"
cmp -s "$TMP/out" "$TMP/main-cmp.txt" || fail "a repeated --arch differs from the list"
jcheck "$TMP/m.json" "d['document'] == 'coalcheck-compare' and d['arch'] == ['cc1.0', 'sm_90']"
expect 2 "unknown architecture 'bogus'" "$COALCHECK" --launch "$LAUNCH" -q --arch cc1.0,bogus
expect 2 "--trace -: standard output holds the report" \
  "$COALCHECK" --launch "$LAUNCH" -q --trace -
expect 7 "/nonexistent/dir/m.cctrace" \
  "$COALCHECK" --launch "$LAUNCH" -q --trace /nonexistent/dir/m.cctrace
[ -s "$TMP/out" ] && fail "an unwritable --trace still printed a report"
ls "$TMP" | grep -q '\.tmp\.' && fail "temporary files left: $(ls "$TMP")"
finish
