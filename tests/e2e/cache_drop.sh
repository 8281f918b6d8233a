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
# workers: every record whole through the parallel replay).
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
[ "$checked" -eq 5 ] || fail "expected 5 cases checked, got $checked"
[ "$checked_cj" -eq 3 ] || fail "expected 3 cases checked with --cache-jobs, got $checked_cj"
finish
