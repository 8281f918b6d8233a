#!/bin/bash
# `mpirun -np N coalcheck ... --cache off` (src/cli/mpi.c, docs/scaling.md): with no
# consumer that needs the records in order, each rank analyses its own CTAs and sends rank
# 0 its per-instruction figures (analysis/pack.c), not its records.
#   1. -np 2 and -np 3 --oversubscribe give the plain run's JSON report (less the wall
#      time) and text report (less its timing line) byte for byte, with --jobs 1 and 2,
#      on a kernel with a tail (scale), integer atomics over uneven shares (count), more
#      ranks than CTAs, two --arch models at once and, with nvcc, the naive and tiled
#      transposes; rank 0's note on stderr says the figures were reduced (the path taken);
#   2. with the cache model (the default) the note says the records were gathered;
#   3. a memcheck error names the lowest failing block under the reduce path too (5:
#      rank 1 of 4 holds blocks 3..5, rank 3 holds block 9), no report written.
# Skipped (77) without mpirun or when coalcheck was built without MPI.
. "$(dirname "$0")/data/common.bash"
command -v mpirun >/dev/null || { echo "skip: no mpirun"; exit 77; }
ldd "$COALCHECK" | grep -q libmpi || { echo "skip: coalcheck was built without MPI"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" # Open MPI's own allocations
K="$DATA/kernels.ptx"
J="$DATA/jobs.ptx"
REDUCED="MPI ranks reduced their per-instruction figures to rank 0"

norm() { jq -S 'del(.kernels[].emulator.seconds)' "$1"; }

# same NAME ARGS...: the plain run and -np 2, -np 3 (--jobs 1 and 2) agree on the
# reports, and rank 0 notes the reduction
same() {
  local name=$1 np jobs
  shift
  "$COALCHECK" "$@" -q --jobs 1 --json "$TMP/p.json" >"$TMP/p.txt" 2>"$TMP/err" ||
    { fail "$name: the plain run failed: $(cat "$TMP/err")"; return; }
  for np in 2 3; do
    for jobs in 1 2; do
      rm -f "$TMP/m.json"
      if ! mpirun -np $np "$COALCHECK" "$@" --jobs $jobs --json "$TMP/m.json" \
           >"$TMP/m.txt" 2>"$TMP/err"; then
        fail "$name -np $np --jobs $jobs failed: $(head -c 600 "$TMP/err")"
        continue
      fi
      grep -q "$np $REDUCED" "$TMP/err" ||
        fail "$name -np $np --jobs $jobs: no note of the reduction: $(head -c 600 "$TMP/err")"
      [ "$(norm "$TMP/p.json")" = "$(norm "$TMP/m.json")" ] ||
        fail "$name -np $np --jobs $jobs: the JSON differs: $(diff <(norm "$TMP/p.json") <(norm "$TMP/m.json") | head -6)"
      cmp -s <(grep -v '^  emulated ' "$TMP/p.txt") <(grep -v '^  emulated ' "$TMP/m.txt") ||
        fail "$name -np $np --jobs $jobs: the text report differs"
    done
  done
}

# 1. identical runs
same scale "$K" --kernel scale --grid 7 --block 64 --arg 'out=f32[n]:zero' \
  --arg 'in=f32[n]:random:3' --arg n=400 --arg a=3 --cache off
same count "$J" --kernel count --grid 41 --block 96 --arg 'bins=u32[7]:zero' --cache off
same few_ctas "$K" --kernel scale --grid 2 --block 32 --arg 'out=f32[n]:zero' \
  --arg 'in=f32[n]:iota' --arg n=64 --arg a=2 --cache off
same two_archs "$K" --kernel scale --grid 7 --block 64 --arg 'out=f32[n]:zero' \
  --arg 'in=f32[n]:random:3' --arg n=400 --arg a=3 --arch cc1.2,sm_90 --cache off
same naive "$COALCHECK_SRC/bench/scale/transpose.ptx" --kernel _Z15transpose_naivePfPKfi \
  --grid 8,32 --block 32,8 --arg 'out=f32[n*n]:zero' --arg 'in=f32[n*n]:random:1' \
  --arg n=256 --cache off
if [ -n "$(find_nvcc)" ]; then
  same tiled --launch "$COALCHECK_SRC/examples/transpose/tiled.launch" --cache off
fi

# 2. the cache model needs the records in order: gathered. Rank 1 holds blocks 3..6 (7 x
#    1 / 2 = 3.5: [3, 7)), 2 warps each, a load and a store per warp: 16 records, less the
#    last warp's two (its threads 416..447 are all past n = 400: no access): 14
mpirun -np 2 "$COALCHECK" "$K" --kernel scale --grid 7 --block 64 --arg 'out=f32[n]:zero' \
  --arg 'in=f32[n]:random:3' --arg n=400 --arg a=3 --json "$TMP/c.json" >/dev/null 2>"$TMP/err" ||
  fail "scale -np 2 with the cache model failed: $(head -c 600 "$TMP/err")"
grep -q "2 MPI ranks gathered 14 warp records on rank 0" "$TMP/err" ||
  fail "scale -np 2 with the cache model: no note of the gathering: $(head -c 600 "$TMP/err")"

# 3. the lowest failing block (tests/e2e/emu_jobs.sh derives the message)
mpirun -np 4 "$COALCHECK" "$J" --kernel late_oob --grid 12 --block 32 --cache off \
  --arg 'out=u32[160]:zero' --arg n=160 --arg work=200000 -q --json "$TMP/oob.json" \
  >/dev/null 2>"$TMP/err"
rc=$?
[ $rc = 5 ] || fail "late_oob -np 4 --cache off exited $rc, expected 5"
grep -q "^coalcheck: error: invalid global write of size 4 at .* by thread (0,0,0) in block (5,0,0)" \
  "$TMP/err" || fail "late_oob -np 4 --cache off: $(head -c 600 "$TMP/err")"
[ -e "$TMP/oob.json" ] && fail "late_oob -np 4 --cache off left a report"

[ "$fails" = 0 ] || exit 1
echo "ok"
