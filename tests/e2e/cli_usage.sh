#!/bin/bash
# Usage errors (exit 2) and the informational commands (exit 0) of the command line.
. "$(dirname "$0")/data/common.bash"
K="$DATA/kernels.ptx"
RUN=(--grid 1 --block 32 --arg 'out=f32[32]:zero')

expect 0 "" "$COALCHECK" --help
grep -q '^usage: coalcheck' "$TMP/out" || fail "--help does not print the usage"
grep -q -- '--max-insns N' "$TMP/out" || fail "--help does not list --max-insns"
# the executable form and its options (docs/usage.md, "GPU backend"), and the defaults
grep -q '^ *coalcheck \[GPU OPTIONS\] ./app \[ARGS\]' "$TMP/out" ||
  fail "--help lacks the executable form"
for opt in "--kernel-name NAME" "--kernel-name-base BASE" "--kernel-id ::NAME:N" "--launch-skip N" "--launch-count N" "--gpu-json FILE" \
           "--sample-ctas N" "--spaces LIST"; do
  grep -qF -- "$opt" "$TMP/out" || fail "--help lacks the GPU option '$opt'"
done
grep -A2 -- '--max-insns N' "$TMP/out" | tr -s ' \n' ' ' | grep -qF 'default: 2^17 per thread of each block, at least 2^26 per block' ||
  fail "--help does not show the default of --max-insns"
grep -A1 -- '--shared BYTES' "$TMP/out" | grep -q 'default 0' ||
  fail "--help does not show the default of --shared"
# an executable INPUT's --help: the same generated options
expect 0 "" "$COALCHECK" --help /bin/true
grep -q '^usage: coalcheck \[options\] EXECUTABLE' "$TMP/out" || fail "--help ./app: no usage"
grep -qF -- "--spaces LIST" "$TMP/out" || fail "--help ./app lacks --spaces"
# an option of the executable mode given with a kernel says where it belongs
expect 2 "option '--spaces' goes with an executable INPUT" "$COALCHECK" "$K" \
  --spaces global --grid 1 --block 32
# --sample-ctas is also kernel mode's, for the inline counters only (gpu_inline_sample.sh)
expect 2 "--sample-ctas with a KERNEL.cu or .ptx samples the inline counters" "$COALCHECK" \
  "$K" --sample-ctas 2 --grid 1 --block 32
expect 0 "" "$COALCHECK" help
grep -q '^usage: coalcheck' "$TMP/out" || fail "help does not print the usage"
expect 0 "" "$COALCHECK" --version
grep -q '^coalcheck [0-9]' "$TMP/out" || fail "--version prints '$(cat "$TMP/out")'"

expect 2 "no input given" "$COALCHECK"
expect 2 "unknown option '--frobnicate'" "$COALCHECK" "$K" --frobnicate
grep -q "^hint: run 'coalcheck --help'" "$TMP/err" || fail "no hint line after a usage error"
expect 2 "missing --grid X[,Y[,Z]]" "$COALCHECK" "$K" --kernel oob --block 32 --arg 'out=f32[32]:zero'
expect 2 "missing --block X[,Y[,Z]]" "$COALCHECK" "$K" --kernel oob --grid 1 --arg 'out=f32[32]:zero'
expect 2 "option '--grid' needs a value" "$COALCHECK" "$K" --grid
expect 2 "bad value '0,1' for --grid" "$COALCHECK" "$K" --grid 0,1 --block 1
expect 2 "has 2048 threads; CUDA allows at most 1024" "$COALCHECK" "$K" --kernel oob --grid 1 --block 64,32
expect 2 "two inputs given" "$COALCHECK" "$K" "$K" "${RUN[@]}"
expect 2 "cannot tell what" "$COALCHECK" "$DATA/common.bash" "${RUN[@]}"
# --dump must name a buffer argument
expect 2 "--dump in=x.bin: no buffer argument is called 'in'" \
  "$COALCHECK" "$K" --kernel oob "${RUN[@]}" --dump in=x.bin
# --arg spelling errors are usage errors
expect 2 "bad --arg 'out=f99[32]:zero': unknown element type" \
  "$COALCHECK" "$K" --kernel oob --grid 1 --block 32 --arg 'out=f99[32]:zero'
expect 2 "unknown initialiser" "$COALCHECK" "$K" --kernel oob --grid 1 --block 32 --arg 'out=f32[32]:ones'
expect 2 "bad size expression '32*'" "$COALCHECK" "$K" --kernel oob --grid 1 --block 32 --arg 'out=f32[32*]:zero'
expect 2 "unknown architecture 'sm_1000'" "$COALCHECK" "$K" --kernel oob "${RUN[@]}" --arch sm_1000
# an output on an input, or two outputs on one file, are refused before anything runs and
# leave the files as they were
cp "$K" "$TMP/k.ptx"
printf '%s\n' "k.ptx --kernel oob --grid 1 --block 32 --arg out=f32[32]:file:in.bin" > "$TMP/k.launch"
head -c 128 /dev/zero > "$TMP/in.bin"
cp "$TMP/k.ptx" "$TMP/k.ptx.orig"
cp "$TMP/k.launch" "$TMP/k.launch.orig"
O=("$COALCHECK" "$TMP/k.ptx" --kernel oob "${RUN[@]}")
expect 2 "--json $TMP/k.ptx is INPUT $TMP/k.ptx: writing it would destroy an input" \
  "${O[@]}" --json "$TMP/k.ptx"
expect 2 "--trace $TMP/./k.ptx is INPUT $TMP/k.ptx" "${O[@]}" --trace "$TMP/./k.ptx"
expect 2 "--dump out=$TMP/k.ptx is INPUT $TMP/k.ptx" "${O[@]}" --dump "out=$TMP/k.ptx"
expect 2 "-o $TMP/k.ptx is INPUT $TMP/k.ptx" \
  "$COALCHECK" record "$TMP/k.ptx" --kernel oob "${RUN[@]}" -o "$TMP/k.ptx"
expect 2 "--json $TMP/k.launch is the launch file $TMP/k.launch" \
  "$COALCHECK" --launch "$TMP/k.launch" --json "$TMP/k.launch"
expect 2 "--dump out=$TMP/in.bin is --arg out=...:file:$TMP/in.bin" \
  "$COALCHECK" --launch "$TMP/k.launch" --dump "out=$TMP/in.bin"
expect 2 "--json $TMP/r.json and --trace $TMP/r.json are one file" \
  "${O[@]}" --json "$TMP/r.json" --trace "$TMP/r.json"
expect 2 "--json $TMP/t.cctrace is INPUT $TMP/t.cctrace" \
  "$COALCHECK" report "$TMP/t.cctrace" --json "$TMP/t.cctrace"
expect 2 "--json $TMP/g.json is INPUT $TMP/g.json" \
  "$COALCHECK" import "$TMP/g.json" --json "$TMP/g.json"
# an executable: --gpu-json is deleted before the run, so naming the executable deleted it
cp /bin/true "$TMP/app"
expect 2 "--gpu-json $TMP/app is INPUT $TMP/app" "$COALCHECK" --gpu-json "$TMP/app" "$TMP/app"
[ -x "$TMP/app" ] || fail "the executable is gone"
cmp -s "$TMP/k.ptx" "$TMP/k.ptx.orig" || fail "INPUT was changed"
cmp -s "$TMP/k.launch" "$TMP/k.launch.orig" || fail "the launch file was changed"
[ "$(stat -c %s "$TMP/in.bin")" = 128 ] || fail "the file: input was changed"
finish
