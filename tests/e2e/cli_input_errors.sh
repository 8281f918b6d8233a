#!/bin/bash
# Input errors (exit 3): unreadable files, malformed PTX, launch files, launch specs that do
# not fit the kernel.
. "$(dirname "$0")/data/common.bash"
K="$DATA/kernels.ptx"
ONE=(--grid 1 --block 1 --arg 'a=u8[1]:zero')

expect 3 "cannot read $TMP/missing.ptx" "$COALCHECK" "$TMP/missing.ptx" "${ONE[@]}"
expect 3 "cannot read $TMP/missing.cu" "$COALCHECK" "$TMP/missing.cu" "${ONE[@]}"
# an INPUT that does not exist is said before the options it lacks (it said "missing
# --grid"), whatever it looks like: no suffix, an executable's ./path, --backend gpu
cd "$TMP" || exit 1
expect 3 "cannot read bogus: No such file or directory" "$COALCHECK" bogus
expect 3 "cannot read ./bogus: No such file or directory" "$COALCHECK" ./bogus --grid 1
expect 3 "cannot read k.ptx: No such file or directory" "$COALCHECK" record k.ptx
expect 3 "cannot read k.cu: No such file or directory" "$COALCHECK" --backend gpu k.cu
cd - >/dev/null || exit 1
# file:line:column of the first bad token
expect 3 "malformed.ptx:11:16: expected an operand" "$COALCHECK" "$DATA/malformed.ptx" "${ONE[@]}"
expect 3 "unknown_insn.ptx:11:2: unknown instruction 'frobnicate.u32'" \
  "$COALCHECK" "$DATA/unknown_insn.ptx" "${ONE[@]}"
# operands that do not fit the instruction's shape (src/ptx/ptx_ops.def): the parser
# reports them as malformed input, not the emulator as unsupported (exit 4)
sed 's/mov.u32 \t%r1, ;/add.s32 %r1, %r1;/' "$DATA/malformed.ptx" > "$TMP/count.ptx"
expect 3 "count.ptx:11:2: 'add.s32' takes 3 operands (d, a, b), found 2" \
  "$COALCHECK" "$TMP/count.ptx" "${ONE[@]}"
sed 's/mov.u32 \t%r1, ;/ld.global.u32 %r1, %r1;/' "$DATA/malformed.ptx" > "$TMP/kind.ptx"
expect 3 "kind.ptx:11:21: operand 2 of 'ld.global.u32' (m) must be an address '[..]'" \
  "$COALCHECK" "$TMP/kind.ptx" "${ONE[@]}"
# modifiers and types the instruction does not have, and operand types that do not agree
# (issue 13: both were accepted; "setp.ge.s32Y" then ran without a type)
sed 's/mov.u32 \t%r1, ;/st.bogus.f32 [%r1], %r1;/' "$DATA/malformed.ptx" > "$TMP/bogus.ptx"
expect 3 "bogus.ptx:11:4: unknown modifier '.bogus' in 'st.bogus.f32'" \
  "$COALCHECK" "$TMP/bogus.ptx" "${ONE[@]}"
sed 's/mov.u32 \t%r1, ;/setp.ge.s32Y %r1, %r1, 32;/' "$DATA/malformed.ptx" > "$TMP/s32y.ptx"
expect 3 "s32y.ptx:11:9: unknown modifier '.s32Y' in 'setp.ge.s32Y'" \
  "$COALCHECK" "$TMP/s32y.ptx" "${ONE[@]}"
sed 's/mov.u32 \t%r1, ;/mov.u64 %r1, 0;/' "$DATA/malformed.ptx" > "$TMP/width.ptx"
expect 3 "width.ptx:11:10: operand 1 of 'mov.u64' (d) must be a 64-bit integer or bit-size register, found '%r1' (.b32)" \
  "$COALCHECK" "$TMP/width.ptx" "${ONE[@]}"
# launch files
expect 3 "cannot read launch file" "$COALCHECK" --launch "$TMP/none.launch"
printf 'kernels.ptx --kernel oob\n--grid 1 --block 32\n--arg '"'"'out=f32[32]:zero\n' > "$TMP/q.launch"
expect 3 "q.launch:3:7: unterminated single quote" "$COALCHECK" --launch "$TMP/q.launch"
# only regular files are read, at most 1 MiB of launch file: /dev/zero and a FIFO used to
# be read (or waited on) forever
expect 3 "cannot read /dev/zero: it is a character device, not a regular file" \
  timeout 20 "$COALCHECK" --launch /dev/zero
mkfifo "$TMP/fifo"
expect 3 "cannot read $TMP/fifo: it is a FIFO, not a regular file" \
  timeout 20 "$COALCHECK" --launch "$TMP/fifo"
{ echo "kernels.ptx --kernel oob"; head -c 1048576 /dev/zero | tr '\0' '#'; } > "$TMP/big.launch"
expect 3 "cannot read $TMP/big.launch: it is larger than 1048576 bytes, the most a launch file may hold" \
  "$COALCHECK" --launch "$TMP/big.launch"
printf 'kernels.ptx --kernel oob --blok 32\n' > "$TMP/o.launch"
expect 2 "o.launch:1: unknown option '--blok'" "$COALCHECK" --launch "$TMP/o.launch"

# kernel selection does not fit the module (docs/exit-codes.md: input, 3, not usage):
# three kernels and no --kernel; a name that is none of them
RUN=(--grid 1 --block 32 --arg 'out=f32[32]:zero')
expect 3 "has 3 kernels; choose one with --kernel: scale, spin, oob" "$COALCHECK" "$K" "${RUN[@]}"
if grep -q "^hint:" "$TMP/err"; then fail "an input error printed the usage hint"; fi
expect 3 "no kernel called 'transpose' in $K; its kernels: scale, spin, oob" \
  "$COALCHECK" "$K" --kernel transpose "${RUN[@]}"

# launch specs that do not fit the kernel scale(float *out, const float *in, int n, float a)
S=("$COALCHECK" "$K" --kernel scale --grid 1 --block 32 -q)
expect 3 "kernel scale has 4 parameters but 3 --arg were given" \
  "${S[@]}" --arg 'out=f32[n]:zero' --arg 'in=f32[n]:iota' --arg n=32
expect 3 "argument 3 'n' is u32 in the kernel but '1.5' is not an integer" \
  "${S[@]}" --arg 'out=f32[32]:zero' --arg 'in=f32[32]:iota' --arg n=1.5 --arg a=2
# n is `int`, .u32 in the PTX: negative values down to -2^31 are taken (cli_run_ok.sh)
expect 3 "argument 3 'n' is u32 in the kernel but '-2147483649' is out of range (-2147483648..4294967295)" \
  "${S[@]}" --arg 'out=f32[32]:zero' --arg 'in=f32[32]:iota' --arg n=-2147483649 --arg a=2
expect 3 "argument 4 'a' is f32 in the kernel but 'two' is not a number" \
  "${S[@]}" --arg 'out=f32[32]:zero' --arg 'in=f32[32]:iota' --arg n=32 --arg a=two
expect 3 "argument 3 'm' is a buffer, passed as a 64-bit pointer, but the kernel's parameter is u32" \
  "${S[@]}" --arg 'out=f32[32]:zero' --arg 'in=f32[32]:iota' --arg 'm=u32[1]:zero' --arg a=2
expect 3 "argument 1 'out': bad size expression 'N': unknown name 'N'" \
  "${S[@]}" --arg 'out=f32[N]:zero' --arg 'in=f32[n]:iota' --arg n=32 --arg a=2
expect 3 "64-bit overflow" \
  "${S[@]}" --arg 'out=f32[n*n*n*n]:zero' --arg 'in=f32[1]:iota' --arg n=65536 --arg a=2
expect 3 "arguments 1 and 2 are both called 'x'" \
  "${S[@]}" --arg 'x=f32[1]:zero' --arg 'x=f32[1]:iota' --arg n=32 --arg a=2
printf '\001\002\003' > "$TMP/three.bin"
expect 3 "buffer 'in': $TMP/three.bin has 3 bytes but the buffer holds 32 f32 elements (128 bytes)" \
  "${S[@]}" --arg 'out=f32[32]:zero' --arg "in=f32[32]:file:$TMP/three.bin" --arg n=32 --arg a=2
expect 3 "buffer 'in': cannot read /dev/zero: it is a character device, not a regular file" \
  timeout 20 "${S[@]}" --arg 'out=f32[32]:zero' --arg "in=f32[32]:file:/dev/zero" --arg n=32 --arg a=2
printf '%0129d' 0 > "$TMP/129.bin"
expect 3 "buffer 'in': $TMP/129.bin has 129 bytes but the buffer holds 32 f32 elements (128 bytes)" \
  "${S[@]}" --arg 'out=f32[32]:zero' --arg "in=f32[32]:file:$TMP/129.bin" --arg n=32 --arg a=2
# an --arg from a launch file: errors found when binding it name the file's line
mkdir "$TMP/lf"
cp "$K" "$TMP/lf/kernels.ptx"
printf 'kernels.ptx --kernel scale --grid 1 --block 32 -q\n--arg out=f32[32]:zero\n--arg in=f32[32]:file:nothing.bin --arg n=32\n--arg a=x\n' > "$TMP/lf/f.launch"
expect 3 "$TMP/lf/f.launch:3: buffer 'in': cannot read $TMP/lf/nothing.bin: No such file or directory" \
  "$COALCHECK" --launch "$TMP/lf/f.launch" --arg a=2
expect 3 "$TMP/lf/f.launch:4: argument 4 'a' is f32 in the kernel but 'x' is not a number" \
  "$COALCHECK" --launch "$TMP/lf/f.launch" --arg 'in=f32[32]:zero'
# the command line's replacement is not the file's
expect 3 "error: argument 4 'a' is f32 in the kernel but 'y' is not a number" \
  "$COALCHECK" --launch "$TMP/lf/f.launch" --arg 'in=f32[32]:zero' --arg a=y
expect 3 "buffer 'in': cannot read $TMP/nothing.bin" \
  "${S[@]}" --arg 'out=f32[32]:zero' --arg "in=f32[32]:file:$TMP/nothing.bin" --arg n=32 --arg a=2
finish
