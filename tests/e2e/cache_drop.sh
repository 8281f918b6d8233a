#!/bin/bash
# Records the emulator's workers count for the cache model themselves (src/cache/drop.c,
# cache.h cc_cache_drop): shared records always, and, once set sampling has started,
# global records that touch no sampled line. The model then sees fewer records, and every
# figure must still be the serial run's: with --jobs 1 there are no workers (every record
# goes through the model), with --jobs 2 and 3 the workers count what they may. The JSON
# reports must be byte-identical (less the wall times), and the runs must have sampled
# (the point of the test): sample-after=1000 makes the switch come early in these small
# launches, so most of their CTAs come after it. Cases: the naive transpose (column
# stores: nearly every record has a sampled line), the tiled one (shared loads and
# stores, rows of global memory: most records are dropped) and the covariance kernel
# (loops). The column records (the naive transpose's stores, covariance's symmat loads
# and stores: 32 lines each, nearly all with a sampled line) reach the model cut to
# their sampled lanes, their whole-record figures counted by the workers (drop.c, "Cut
# records"). A run that also writes a trace or the views takes every record whole in
# order: the workers must then count nothing for the model (they did, twice, before
# 2026-11-27's cut records). The cache model's own threads (--cache-jobs, src/cache/par.c:
# the parallel replay takes the cut records too) must give the same reports: --jobs 3
# with 2 of them, --jobs 2 with 5 (more model threads than workers), --jobs 1 with 3 (no
# workers: every record whole through the parallel replay). wide_local: local accesses of
# 16 and 8 bytes (the model gets one record a 32-bit word), sent whole by the workers,
# beside global stores they cut, the switch early. (Whether the workers' count of the
# records the model gets is exact, which the switch they foresee rests on, is
# tests/analysis/test_analysis_partial.c's test_counted_records: here the model usually
# reaches its switch before the workers' word, so a wrong count would rarely show.)
. "$(dirname "$0")/data/common.bash"

# same NAME ARGS...: ARGS with --jobs 1, 2, 3 give the same report, and it sampled
same() {
  local name=$1
  shift
  jobs_same "$name" "1 2 3" "$@" || return
  jq -e '[.kernels[].cache.sampled_from_record // empty] | length > 0' "$TMP/1.json" \
    >/dev/null || { fail "$name: the run did not sample (the test would check nothing)"; return; }
  checked=$((checked + 1))
}

# same_cache_jobs NAME ARGS...: ARGS with --jobs 1 and with the model on its own threads
# give the same report (the first is $TMP/1.norm from `same`)
same_cache_jobs() {
  local name=$1 run j cj
  shift
  for run in 3,2 2,5 1,3; do
    j=${run%,*} cj=${run#*,}
    if ! "$COALCHECK" "$@" -q --jobs "$j" --cache-jobs "$cj" --json "$TMP/cj.json" \
         >/dev/null 2>"$TMP/err.cj"; then
      fail "$name --jobs $j --cache-jobs $cj did not run: $(head -c 400 "$TMP/err.cj")"
      return
    fi
    jq -S 'del(.. | .seconds?)' "$TMP/cj.json" >"$TMP/cj.norm"
    cmp -s "$TMP/1.norm" "$TMP/cj.norm" ||
      fail "$name: --jobs $j --cache-jobs $cj differs from --jobs 1: $(diff "$TMP/1.norm" "$TMP/cj.norm" | head -6)"
  done
  checked_cj=$((checked_cj + 1))
}

checked=0
checked_cj=0
T="$COALCHECK_SRC/bench/scale/transpose.ptx"
C="$COALCHECK_SRC/bench/scale/covariance.ptx"
TR=(--block 32,8 --arg 'out=f32[n*n]:zero' --arg 'in=f32[n*n]:random:1' --arg n=512)
EARLY="h100,sample-after=1000"
same naive "$T" --kernel _Z15transpose_naivePfPKfi --grid 16,64 "${TR[@]}" --cache "$EARLY"
same_cache_jobs naive "$T" --kernel _Z15transpose_naivePfPKfi --grid 16,64 "${TR[@]}" \
  --cache "$EARLY"
same tiled "$T" --kernel _Z15transpose_tiledPfPKfi --grid 16,16 "${TR[@]}" --cache "$EARLY"
same_cache_jobs tiled "$T" --kernel _Z15transpose_tiledPfPKfi --grid 16,16 "${TR[@]}" \
  --cache "$EARLY"
same covariance "$C" --kernel _Z12covar_kernelPfS_ii --grid 4 --block 32 \
  --arg 'symmat=f32[(m+1)*(m+1)]:zero' --arg 'data=f32[(n+1)*(m+1)]:random:51' \
  --arg m=128 --arg n=16 --cache "$EARLY"
same_cache_jobs covariance "$C" --kernel _Z12covar_kernelPfS_ii --grid 4 --block 32 \
  --arg 'symmat=f32[(m+1)*(m+1)]:zero' --arg 'data=f32[(n+1)*(m+1)]:random:51' \
  --arg m=128 --arg n=16 --cache "$EARLY"
same "naive with a trace" "$T" --kernel _Z15transpose_naivePfPKfi --grid 16,64 "${TR[@]}" \
  --cache "$EARLY" --trace "$TMP/naive.cctrace"
same "naive with the views" "$T" --kernel _Z15transpose_naivePfPKfi --grid 16,64 "${TR[@]}" \
  --cache "$EARLY" --html "$TMP/naive.html"
# each thread writes 16 bytes of local memory at once and reads them back 8 at a time
cat >"$TMP/wide_local.ptx" <<'PTX'
.version 8.0
.target sm_90
.address_size 64
.visible .entry wide_local(.param .u64 p_out)
{
  .local .align 16 .b8 depot[16];
  .reg .b32 %r<12>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [p_out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mad.lo.u32 %r4, %r1, %r2, %r3;
  add.u32 %r5, %r4, 1;
  add.u32 %r6, %r4, 2;
  add.u32 %r7, %r4, 3;
  mov.u64 %rd2, depot;
  st.local.v4.u32 [%rd2], {%r4, %r5, %r6, %r7};
  ld.local.v2.u32 {%r8, %r9}, [%rd2];
  ld.local.v2.u32 {%r10, %r11}, [%rd2+8];
  add.u32 %r8, %r8, %r9;
  add.u32 %r8, %r8, %r10;
  add.u32 %r8, %r8, %r11;
  mul.wide.u32 %rd3, %r4, 4;
  add.s64 %rd4, %rd1, %rd3;
  st.global.u32 [%rd4], %r8;
  ret;
}
PTX
same "wide local" "$TMP/wide_local.ptx" --kernel wide_local --grid 512 --block 64 \
  --arg 'out=u32[32768]:zero' --cache "$EARLY"
[ "$checked" -eq 6 ] || fail "expected 6 cases checked, got $checked"
[ "$checked_cj" -eq 3 ] || fail "expected 3 cases checked with --cache-jobs, got $checked_cj"
finish
