#!/bin/bash
# The workers' partial figures reduced in a tree (src/emu/par.c, reduce; access.h,
# combine): at round r worker j (j a multiple of 2^(r+1)) combines worker j + 2^r's
# partial into its own, and the calling thread closes worker 0's alone. Whatever the
# number of workers the report must be the serial run's, byte for byte (less the wall
# times): --jobs 5 and 7 leave a worker without a partner at some round (5: 4 waits for
# nobody until round 2; 7: 6 at round 0), 16 takes four rounds, 2 one. Cases (PTX of
# bench/scale: no nvcc needed):
#   1. the transposes with --cache off (no ordered stream: the figures come from the
#      partials alone) and with two models (cc1.2, sm_90: one partial each, combined
#      pairwise);
#   2. the transposes and the covariance kernel with the cache model sampling early
#      (sample-after=1000): the workers' dropped records (cache.h cc_cache_drop) are
#      counted in their partials, and combine sums those counts too.
. "$(dirname "$0")/data/common.bash"

JOBS="1 2 5 7 16"
checked=0
T="$COALCHECK_SRC/bench/scale/transpose.ptx"
C="$COALCHECK_SRC/bench/scale/covariance.ptx"
TR=(--block 32,8 --arg 'out=f32[n*n]:zero' --arg 'in=f32[n*n]:random:1' --arg n=512)
NAIVE=(--kernel _Z15transpose_naivePfPKfi --grid 16,64)
TILED=(--kernel _Z15transpose_tiledPfPKfi --grid 16,16)
# 16 blocks of 32 threads, one column of symmat each (m = 512): at least 16 workers
COV=(--kernel _Z12covar_kernelPfS_ii --grid 16 --block 32 --arg 'symmat=f32[(m+1)*(m+1)]:zero'
     --arg 'data=f32[(n+1)*(m+1)]:random:51' --arg m=512 --arg n=8)

# same NAME ARGS...: ARGS with every --jobs of $JOBS give the --jobs 1 report
same() {
  local name=$1
  shift
  jobs_same "$name" "$JOBS" "$@" && checked=$((checked + 1))
}

# 1. the partials alone
for extra in "--cache off" "--arch cc1.2,sm_90 --cache off"; do
  # shellcheck disable=SC2086 # extra is several options
  same "naive $extra" "$T" "${NAIVE[@]}" "${TR[@]}" $extra
  # shellcheck disable=SC2086
  same "tiled $extra" "$T" "${TILED[@]}" "${TR[@]}" $extra
done

# 2. with the cache model's drops counted in the partials
EARLY="h100,sample-after=1000"
same "naive cached" "$T" "${NAIVE[@]}" "${TR[@]}" --cache "$EARLY"
same "tiled cached" "$T" "${TILED[@]}" "${TR[@]}" --cache "$EARLY"
same "covariance cached" "$C" "${COV[@]}" --cache "$EARLY"
jq -e '[.kernels[].cache.sampled_from_record // empty] | length > 0' "$TMP/1.json" \
  >/dev/null || fail "covariance: the run did not sample (the drops would not be checked)"

[ "$checked" -eq 7 ] || fail "expected 7 cases checked, got $checked"
finish
