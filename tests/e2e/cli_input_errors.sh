#!/bin/bash
# Input errors (exit 3): unreadable files, malformed PTX, launch files, launch specs that do
# not fit the kernel.
. "$(dirname "$0")/data/common.bash"
K="$DATA/kernels.ptx"
ONE=(--grid 1 --block 1 --arg 'a=u8[1]:zero')

expect 3 "cannot read $TMP/missing.ptx" "$COALCHECK" "$TMP/missing.ptx" "${ONE[@]}"
expect 3 "cannot read $TMP/missing.cu" "$COALCHECK" "$TMP/missing.cu" "${ONE[@]}"
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
expect 3 "argument 3 'n' is u32 in the kernel but '-1' is out of range (0..4294967295)" \
  "${S[@]}" --arg 'out=f32[32]:zero' --arg 'in=f32[32]:iota' --arg n=-1 --arg a=2
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
expect 3 "buffer 'in': cannot read $TMP/nothing.bin" \
  "${S[@]}" --arg 'out=f32[32]:zero' --arg "in=f32[32]:file:$TMP/nothing.bin" --arg n=32 --arg a=2
finish
