#!/bin/bash
# Successful runs: dumps, the random initialiser, launch files (relative paths, command
# line wins), --json, --top. Expected values are derived by hand in the comments.
. "$(dirname "$0")/data/common.bash"
K="$DATA/kernels.ptx"

# word I of a dump as 8 hex digits (little-endian u32)
word() { od -An -v -tx4 -j $(($2 * 4)) -N4 "$1" | tr -d ' '; }

# scale: out[i] = a * in[i] for i < n; in = iota, a = 2, n = 100, 2 x 64 threads:
# out[1] = 2.0f = 0x40000000; out[99] = 198.0f = 1.546875 * 2^7 -> 0x43460000
expect 0 "" "$COALCHECK" "$K" --kernel scale --grid 2 --block 64 --arg 'out=f32[n+28]:zero' \
  --arg 'in=f32[n]:iota' --arg n=100 --arg a=2 --dump "out=$TMP/out.bin" --dump "in=$TMP/in.bin"
[ -s "$TMP/err" ] && fail "a short run printed on stderr: $(cat "$TMP/err")"
grep -q "scale" "$TMP/out" || fail "the report does not name the kernel"
# the emulator's counters in the header; no tab from the PTX text in the report
grep -Eq '^  emulated [0-9][0-9,]* thread-instructions in [0-9]+\.[0-9]{2} s' "$TMP/out" ||
  fail "no 'emulated N thread-instructions in S s' line: $(head -n4 "$TMP/out")"
if grep -q "$(printf '\t')" "$TMP/out"; then fail "the text report holds a tab"; fi
[ "$(stat -c %s "$TMP/out.bin")" = 512 ] || fail "out.bin is not 128 floats"
[ "$(word "$TMP/out.bin" 1)" = 40000000 ] || fail "out[1] = $(word "$TMP/out.bin" 1)"
[ "$(word "$TMP/out.bin" 99)" = 43460000 ] || fail "out[99] = $(word "$TMP/out.bin" 99)"
[ "$(word "$TMP/out.bin" 100)" = 00000000 ] || fail "out[100] (not written) = $(word "$TMP/out.bin" 100)"

# n is `int` in kernels.cu, which nvcc declares .u32: -1 is passed as 0xffffffff, which the
# kernel's signed guard (setp.ge.s32 i, n) reads as -1, so no thread stores: out[1] stays 0
expect 0 "" "$COALCHECK" "$K" --kernel scale --grid 1 --block 32 --arg 'out=f32[32]:zero' \
  --arg 'in=f32[32]:iota' --arg n=-1 --arg a=2 --dump "out=$TMP/neg.bin" -q
[ "$(word "$TMP/neg.bin" 1)" = 00000000 ] || fail "n=-1: out[1] = $(word "$TMP/neg.bin" 1)"

# random (seed 0): the first splitmix64 output is 0xe220a8397b1dcdaf; f32 = (x >> 40) * 2^-24
# = 0xe220a8 * 2^-24 = 1.766... * 2^-1: exponent 126 (0x3f000000), mantissa 0xe220a8 -
# 0x800000 = 0x6220a8 -> 0x3f6220a8
expect 0 "" "$COALCHECK" "$K" --kernel scale --grid 1 --block 32 --arg 'out=f32[32]:zero' \
  --arg 'in=f32[32]:random' --arg n=32 --arg a=1 --dump "in=$TMP/r.bin" -q
[ "$(word "$TMP/r.bin" 0)" = 3f6220a8 ] || fail "random f32[0] = $(word "$TMP/r.bin" 0)"

# a launch file with relative paths, run from another folder; the command line wins (a=3)
mkdir "$TMP/l"
cp "$K" "$TMP/l/k.ptx"
for _ in $(seq 32); do printf '\000\000\200\077'; done > "$TMP/l/ones.bin" # 32 x 1.0f
cat > "$TMP/l/scale.launch" <<'LAUNCH'
# scale 32 ones by 2 (the command line makes it 3)
k.ptx --kernel scale
--grid 1 --block 32   # one warp
--arg 'out=f32[n]:zero' --arg "in=f32[n]:file:ones.bin" --arg n=32 --arg a=2
LAUNCH
(cd / && "$COALCHECK" --launch "$TMP/l/scale.launch" --arg a=3 --dump "out=$TMP/o3.bin" -q \
  >"$TMP/out" 2>"$TMP/err") || fail "the launch file run failed: $(cat "$TMP/err")"
# 3.0f = 1.5 * 2^1 -> exponent 128, mantissa 0x400000 -> 0x40400000
[ "$(word "$TMP/o3.bin" 31)" = 40400000 ] || fail "launch out[31] = $(word "$TMP/o3.bin" 31)"

# --json FILE: written whole; --json -: standard output holds the JSON only
expect 0 "" "$COALCHECK" --launch "$TMP/l/scale.launch" --json "$TMP/r.json" -q
head -c1 "$TMP/r.json" | grep -q '{' || fail "r.json does not start with '{'"
grep -q '"kernels"' "$TMP/r.json" || fail "r.json has no kernels"
grep -q 'scale' "$TMP/out" || fail "no text report with --json FILE"
expect 0 "" "$COALCHECK" --launch "$TMP/l/scale.launch" --json - -q
head -c1 "$TMP/out" | grep -q '{' || fail "--json - does not start standard output with '{'"
grep -q '^kernel ' "$TMP/out" && fail "--json - mixed the text report into standard output"

# --top 1 shows fewer instructions than the default (scale has a load and a store)
expect 0 "" "$COALCHECK" --launch "$TMP/l/scale.launch" -q
all=$(wc -l < "$TMP/out")
expect 0 "" "$COALCHECK" --launch "$TMP/l/scale.launch" -q --top 1
[ "$(wc -l < "$TMP/out")" -lt "$all" ] || fail "--top 1 did not shorten the report"
ls "$TMP" | grep -q '\.tmp\.' && fail "temporary files left: $(ls "$TMP")"
finish
