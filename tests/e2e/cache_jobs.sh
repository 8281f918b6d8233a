#!/bin/bash
# The cache model on several threads (src/cache/README.md, Parallel replay):
# `coalcheck report TRACE --jobs N` replays it on N threads (L1 per SM, L2 by set), and
# every figure is the serial replay's: the JSON reports of --jobs 1, 2, 3 and 4 are
# byte-identical once the wall times ("seconds") are removed. `coalcheck KERNEL --jobs N`
# (N emulator workers, the model on one thread behind them: cli_impl.h
# cc_cli_outputs_replay_jobs) must give the same reports too. Each kernel below is run
# both ways: emulated with --jobs N, and recorded once then replayed with --jobs N.
#   1. the transposes and the covariance kernel of bench/scale (PTX: no nvcc needed), with
#      the H100's model, with a 64 KiB L2 and 8 KiB L1 under blocked dispatch (the
#      kernels' 512 KiB footprint overflows it: evictions and DRAM writes, checked to be
#      there), with a 4-way modulo-indexed L2, and with two models at once;
#   2. with nvcc: the examples with atomics (histogram), local memory (local_array) and
#      a strided copy, on the small caches.
# (tests/e2e/emu_jobs.sh runs all 52 example launches with --jobs 1, 3, 4 and the
# default cache model, which is this replay too.)
. "$(dirname "$0")/data/common.bash"

SMALL="h100,l2=64K,l1=8K,dispatch=blocked"
MOD="h100,l2=64K,l2-ways=4,index=mod"

# same NAME ARGS...: ARGS with --jobs 1, 2, 3, 4 give the same report
same() {
  local name=$1
  shift
  jobs_same "$name" "1 2 3 4" "$@" && checked=$((checked + 1))
}

checked=0
T="$COALCHECK_SRC/bench/scale/transpose.ptx"
C="$COALCHECK_SRC/bench/scale/covariance.ptx"
TR=(--block 32,8 --arg 'out=f32[n*n]:zero' --arg 'in=f32[n*n]:random:1' --arg n=256)
COV=(--kernel _Z12covar_kernelPfS_ii --grid 4 --block 32 --arg 'symmat=f32[(m+1)*(m+1)]:zero'
     --arg 'data=f32[(n+1)*(m+1)]:random:51' --arg m=128 --arg n=16)

# both NAME ARGS...: the kernel with --jobs N, then its trace with report --jobs N, under
# each of the three caches
both() {
  local name=$1 cache
  shift
  "$COALCHECK" record "$@" -q -o "$TMP/both.cctrace" >/dev/null 2>"$TMP/err" ||
    { fail "$name: record: $(head -c 400 "$TMP/err")"; return; }
  for cache in h100 "$SMALL" "$MOD"; do
    same "$name $cache" "$@" --cache "$cache"
    same "$name, trace, $cache" report "$TMP/both.cctrace" --cache "$cache"
  done
}

# 1. kernels
both naive "$T" --kernel _Z15transpose_naivePfPKfi --grid 8,32 "${TR[@]}"
both tiled "$T" --kernel _Z15transpose_tiledPfPKfi --grid 8,8 "${TR[@]}"
both covariance "$C" "${COV[@]}"
# the small cache overflows: the replay's write-backs and evictions are exercised
"$COALCHECK" record "$T" --kernel _Z15transpose_naivePfPKfi --grid 8,32 "${TR[@]}" -q \
  -o "$TMP/small.cctrace" >/dev/null 2>&1 || fail "naive: record did not run"
"$COALCHECK" report "$TMP/small.cctrace" --cache "$SMALL" -q --jobs 3 \
  --json "$TMP/small.json" >/dev/null 2>&1 || fail "naive $SMALL did not replay"
jcheck "$TMP/small.json" "d['kernels'][0]['totals']['dram_bytes_written'] > 0"
same "naive, two models" "$T" --kernel _Z15transpose_naivePfPKfi --grid 8,32 "${TR[@]}" \
  --arch sm_90,sm_61

# 2. examples
if [ -n "$(find_nvcc)" ]; then
  for l in histogram/global local_array/divergent strided_copy/stride32; do
    both "$l" --launch "$COALCHECK_SRC/examples/$l.launch"
  done
else
  echo "note: no nvcc: the examples part is skipped"
fi

[ "$fails" = 0 ] || exit 1
echo "ok: $checked runs identical under --jobs 1, 2, 3, 4"
