#!/bin/bash
# The GPU backend's trace mode behind the coalcheck command, without a GPU: converting a
# GPU trace (.ccgpu, what libcoalcheck_gpu.so writes to $COALCHECK_GPU_TRACE) into a
# .cctrace with `coalcheck import RUN.ccgpu --trace FILE.cctrace`, reporting it, and the
# usage errors of --trace / --sample-ctas. See docs/usage.md, "GPU backend".
. "$(dirname "$0")/data/common.bash"
G="$COALCHECK_SRC/tests/gpu/data/copy1.ccgpu"
# copy1.ccgpu, made by tests/gpu/data/make-ccgpu.py (layout in src/gpu/trace.c): one
# function copy (20 slots), one instruction at slot 3 (LDG.E, load, global, 4 bytes,
# copy.cu:7), one launch (grid 1, block 32), one record: a full warp, lane l at
# 0x1000 + 4 l (128 contiguous bytes), in the 32-byte affine form (base 0x1000, stride 4).
# sm_90: 1 request, 0x1000..0x107f = 4 sectors; cc1.0: 2 half-warp requests of 64 B, one
# transaction each.
expect 0 "" "$COALCHECK" import "$G" --trace "$TMP/c.cctrace"
grep -q "1 warp records of 1 launches" "$TMP/err" || fail "import did not say what it wrote"
expect 0 "" "$COALCHECK" report "$TMP/c.cctrace" --arch cc1.0,sm_90
grep -Eq '^  sm_90 +1 +4 +128 +100\.0%' "$TMP/out" || fail "sm_90 totals of copy1 differ"
grep -Eq '^  cc1\.0 +2 +2 +128 +100\.0%' "$TMP/out" || fail "cc1.0 totals of copy1 differ"
grep -q 'copy.cu:7, load global, 4 bytes' "$TMP/out" || fail "the SASS table was lost"
# copy1-demangled.ccgpu: the same file with the function named as the library really names
# it, by its demangled signature "copy(float*, float const*)"; the trace's kernel must be
# named as the emulator and the in-situ import name it: "copy" (the source name)
expect 0 "" "$COALCHECK" import "$COALCHECK_SRC/tests/gpu/data/copy1-demangled.ccgpu" \
  --trace "$TMP/d.cctrace"
expect 0 "" "$COALCHECK" report "$TMP/d.cctrace"
grep -q '^kernel copy  (_Z4copyPfPKf)$' "$TMP/out" || fail "trace kernel not named 'copy'"

# ---- errors ----------------------------------------------------------------------------
expect 2 "give --trace" "$COALCHECK" import "$G"
expect 2 "--trace goes with a GPU trace" "$COALCHECK" import "$TMP/x.json" --trace "$TMP/y"
expect 2 "takes only --trace, --html and -q" "$COALCHECK" import "$G" --trace "$TMP/y" --top 3
expect 2 "--sample-ctas 0: not a positive integer" "$COALCHECK" --sample-ctas 0 /bin/true
expect 2 "--sample-ctas x: not a positive integer" "$COALCHECK" --sample-ctas x /bin/true
expect 2 "'shard' is not a memory space" "$COALCHECK" --spaces global,shard /bin/true
printf 'CCGPUTR9' > "$TMP/bad.ccgpu"
expect 3 "not a GPU trace" "$COALCHECK" import "$TMP/bad.ccgpu" --trace "$TMP/y"
head -c 180 "$G" > "$TMP/short.ccgpu" # 197 bytes: cut inside the record
expect 3 "truncated" "$COALCHECK" import "$TMP/short.ccgpu" --trace "$TMP/y"
[ -e "$TMP/y" ] && fail "a failed conversion left $TMP/y"
expect 7 "cannot write" "$COALCHECK" import "$G" --trace /nonexistent/dir/c.cctrace
finish
