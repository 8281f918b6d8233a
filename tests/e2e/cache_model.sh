#!/bin/bash
# The cache model on the command line: --cache and --calibration, the traffic figures of
# the JSON report, `report` replaying a trace through the same model, and bad input.
# Kernel: examples/transpose's naive transpose (n = 1024, grid 32 x 128 CTAs of 32 x 8
# threads; needs nvcc, skipped without). Figures derived by hand:
#   load in[y*n + x]: each warp reads one whole 128-byte line of `in`, every line once:
#     no L1 hit; 131072 L2 sectors; DRAM reads all of `in`, 4 MiB = 4194304 bytes.
#   store out[x*n + y]: 32 sectors a request, 32768 requests: 1048576 L2 sectors; each
#     sector is wholly written by the 8 warps of one CTA (y = 8 by + w, 8 floats), so it
#     never needs a DRAM read; `out` (4 MiB) is written to DRAM at most once. With the
#     H100's 50 MiB L2 nothing is evicted: 0 bytes written during the kernel, all 4194304
#     left dirty in L2 at the end (l2_dirty_bytes_at_end, schema 3); with a 1 MiB L2 most
#     goes at eviction (written), at most 1 MiB stays dirty, the two summing to 4194304.
#   L2 sectors: 131072 + 1048576 = 1179648.
. "$(dirname "$0")/data/common.bash"
[ -n "$(find_nvcc)" ] || { echo "skip: nvcc not found"; exit 77; }
LAUNCH="$COALCHECK_SRC/examples/transpose/naive.launch"
T="$TMP/naive.cctrace"

jcheck() {
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); k=d['kernels'][0]; t=k['totals']
sys.exit(0 if ($2) else 1)" "$1" || fail "$1: not true: $2"
}

expect 0 "" "$COALCHECK" --launch "$LAUNCH" -q --json "$TMP/h100.json" --trace "$T"
jcheck "$TMP/h100.json" "d['schema_version'] == 5 and k['cache']['device'] == 'h100'"
jcheck "$TMP/h100.json" "t['l1_hit_sectors'] == 0 and t['l2_sectors'] == 1179648"
jcheck "$TMP/h100.json" "t['dram_bytes_read'] == 4194304 and t['dram_bytes_written'] == 0"
jcheck "$TMP/h100.json" "t['l2_dirty_bytes_at_end'] == 4194304 and k['cache']['l2_evictions'] == 0"
jcheck "$TMP/h100.json" "k['instructions'][0]['op'] == 'store' and k['instructions'][0]['l2_sectors_write'] == 1048576"
jcheck "$TMP/h100.json" "k['instructions'][0]['estimated_gain_us'] > 0"
grep -q '^  traffic: L1 hits 0 of 131,072 load sectors (0.0%); L2 1,179,648 sectors; DRAM 4.2 MB' \
  "$TMP/out" || fail "text: no traffic line: $(grep traffic "$TMP/out")"
grep -q '^     gain    coalescing this source line saves about' "$TMP/out" || fail "text: no gain line"

# the trace replays through the same model to the same figures; another device and L2
expect 0 "" "$COALCHECK" report "$T" --json "$TMP/replay.json" -q
python3 -c "import json,sys; a,b=(json.load(open(p))['kernels'][0]['totals'] for p in sys.argv[1:])
sys.exit(0 if all(a[f] == b[f] for f in ('l1_hit_sectors','l2_sectors','dram_bytes_read','dram_bytes_written','l2_dirty_bytes_at_end')) else 1)" \
  "$TMP/h100.json" "$TMP/replay.json" || fail "report of the trace differs from the run"
expect 0 "" "$COALCHECK" report "$T" --cache h200,l2=1M --json "$TMP/small.json" -q
jcheck "$TMP/small.json" "k['cache']['device'] == 'h200' and k['cache']['l2_bytes'] == 1048576"
jcheck "$TMP/small.json" "t['dram_bytes_written'] + t['l2_dirty_bytes_at_end'] == 4194304 and 0 < t['l2_dirty_bytes_at_end'] <= 1048576"
# L2 overflowed: the estimate counts the dirty bytes too (cc_cache_dram_bytes): 8 MiB
jcheck "$TMP/small.json" "k['cache']['l2_evictions'] > 0 and k['time']['dram_bytes'] == 8388608"
expect 0 "" "$COALCHECK" report "$T" --cache off --json "$TMP/off.json" -q
jcheck "$TMP/off.json" "k['cache'] is None and t['dram_bytes_read'] is None"

# the cache model counts in the analyses' memory: the H100's arrays are 132 SMs x 2048 L1
# lines x 16 bytes (4325376) plus 409600 L2 lines x 48 bytes (19660800), and the way
# predictors: 132 x 1024 x 4 bytes (540672) and 65536 x 4 (262144), and the memos per SM:
# 132 x (four L1 memos of 864 bytes: 64 lines x 8 + 64 masks + 64 ways x 4 + 32, their
# list's 128, and 440 of store memo: 32 ways x 4 + 32 lines x 8 + 32 masks + 24) = 531168,
# and per L2 set (25600 of 16 ways) its masks of dirty and partly written ways, 2 x 8 bytes
# (409600), and a byte per set marking the sets a kernel filled: 132 x 512 L1 sets (67584)
# and 25600 L2 sets: 25822944 bytes, 24.63 MiB, 24.7 with the per-SM and per-instruction
# counters (which took 24.25 MiB to 24.3 before the L1 memos' ways and list: between 0.05
# and 0.1 MiB); above a limit of 16 MiB; without the model, or with a 1 MiB L2 (5.3 MB),
# the trace fits
expect 6 "a cache model of 24.7 MiB, which --cache off drops): raise it with --max-analysis-memory MIB" \
  "$COALCHECK" report "$T" --max-analysis-memory 16
expect 0 "" "$COALCHECK" report "$T" --max-analysis-memory 16 --cache off -q
expect 0 "" "$COALCHECK" report "$T" --max-analysis-memory 16 --cache h100,l2=1M -q

# calibration: the speeds replace the table's; H200's DRAM at 4000 GB/s: the 4194304
# bytes read (the 4 MiB left dirty in the 50 MiB L2 do not count) take 1.048576 us
printf '{"dram_gbs": 4000, "l2_gbs": 8000}\n' > "$TMP/calib.json"
expect 0 "" "$COALCHECK" report "$T" --cache h200 --calibration "$TMP/calib.json" --json "$TMP/c.json" -q
jcheck "$TMP/c.json" "k['time']['calibrated'] and abs(k['time']['dram_us'] - 1.048576) < 1e-9"

# bad input: usage errors (2) that say what is known or allowed; a bad calibration file (3)
expect 2 "unknown device 'b200' in --cache b200: use one of h100 (sm_90)" \
  "$COALCHECK" report "$T" --cache b200
expect 2 "use a power of two" "$COALCHECK" report "$T" --cache h100,l1=100K
expect 2 "7 ways do not divide its 409600 lines" "$COALCHECK" report "$T" --cache h100,l2-ways=7
expect 2 "--cache h100 is a sm_90 device but the model is sm_80: use --arch sm_90, or --cache a100" \
  "$COALCHECK" report "$T" --arch sm_80 --cache h100
expect 2 "unknown key" "$COALCHECK" report "$T" --cache h100,ways=4
expect 3 "cannot read calibration file" "$COALCHECK" report "$T" --calibration "$TMP/none.json"
printf '{"dram_gbs": "fast"}\n' > "$TMP/bad.json"
expect 3 "field 'dram_gbs' is not a positive number" \
  "$COALCHECK" report "$T" --calibration "$TMP/bad.json"
# record ignores the cache options in a launch file, refuses them on its command line
expect 2 "is not an option of 'coalcheck record'" "$COALCHECK" record --launch "$LAUNCH" --cache h100
finish
