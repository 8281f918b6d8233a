#!/bin/bash
# `mpirun -np N coalcheck ...` (src/cli/mpi.c, docs/scaling.md): each rank emulates a
# contiguous share of the CTAs, rank 0 writes the one report.
#   1. -np 2 and -np 4 --oversubscribe give the plain run's JSON report (less the wall
#      time), text report (less its timing line) and --dump buffers byte for byte: a
#      kernel with a tail (scale), integer atomics over uneven shares (count: reports
#      only), more ranks than CTAs, and, with nvcc, the tiled transpose and the global
#      histogram (reports only); a --dump of a buffer that two ranks change (atomic bins)
#      is refused (exit 4), naming the buffer;
#   2. a memcheck error names the lowest failing block (5: rank 1 of 4 holds blocks 3..5,
#      rank 3 holds block 9, which fails too) and no report is written;
#   3. ranks whose inputs differ are refused, naming the rank (exit 3);
#   4. a rank that dies fails the job, the rank named by mpirun, no report written.
# Skipped (77) without mpirun or when coalcheck was built without MPI.
. "$(dirname "$0")/data/common.bash"
command -v mpirun >/dev/null || { echo "skip: no mpirun"; exit 77; }
ldd "$COALCHECK" | grep -q libmpi || { echo "skip: coalcheck was built without MPI"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" # Open MPI's own allocations
K="$DATA/kernels.ptx"
J="$DATA/jobs.ptx"

norm() { jq -S 'del(.kernels[].emulator.seconds)' "$1"; }

# same NAME BUF ARGS...: the plain run and -np 2, -np 4 agree on the reports and on BUF
# (- : no dump)
same() {
  local name=$1 buf=$2 np d1=() d2=()
  shift 2
  if [ "$buf" != - ]; then d1=(--dump "$buf=$TMP/p.bin"); d2=(--dump "$buf=$TMP/m.bin"); fi
  "$COALCHECK" "$@" -q --jobs 2 --json "$TMP/p.json" "${d1[@]}" \
    >"$TMP/p.txt" 2>"$TMP/err" || { fail "$name: the plain run failed: $(cat "$TMP/err")"; return; }
  for np in 2 4; do
    rm -f "$TMP/m.json" "$TMP/m.bin"
    if ! mpirun -np $np "$COALCHECK" "$@" -q --jobs 2 --json "$TMP/m.json" \
         "${d2[@]}" >"$TMP/m.txt" 2>"$TMP/err"; then
      fail "$name -np $np failed: $(head -c 600 "$TMP/err")"
      continue
    fi
    [ "$(norm "$TMP/p.json")" = "$(norm "$TMP/m.json")" ] ||
      fail "$name -np $np: the JSON differs: $(diff <(norm "$TMP/p.json") <(norm "$TMP/m.json") | head -6)"
    cmp -s <(grep -v '^  emulated ' "$TMP/p.txt") <(grep -v '^  emulated ' "$TMP/m.txt") ||
      fail "$name -np $np: the text report differs"
    [ "$buf" = - ] || cmp -s "$TMP/p.bin" "$TMP/m.bin" || fail "$name -np $np: buffer $buf differs"
  done
}

# 1. identical runs
same scale out "$K" --kernel scale --grid 7 --block 64 --arg 'out=f32[n]:zero' \
  --arg 'in=f32[n]:random:3' --arg n=400 --arg a=3
same count - "$J" --kernel count --grid 41 --block 96 --arg 'bins=u32[7]:zero'
same few_ctas - "$J" --kernel count --grid 3 --block 32 --arg 'bins=u32[7]:zero'
same few_ctas_out out "$K" --kernel scale --grid 3 --block 32 --arg 'out=f32[n]:zero' \
  --arg 'in=f32[n]:iota' --arg n=96 --arg a=2
if [ -n "$(find_nvcc)" ]; then
  same tiled out --launch "$COALCHECK_SRC/examples/transpose/tiled.launch"
  same histogram - --launch "$COALCHECK_SRC/examples/histogram/global.launch"
fi
# every rank adds to bins 0..6: rank 1 changes bytes rank 0 changed (byte 0 first)
mpirun -np 2 "$COALCHECK" "$J" --kernel count --grid 41 --block 96 --arg 'bins=u32[7]:zero' \
  -q --json "$TMP/bins.json" --dump "bins=$TMP/bins.bin" >/dev/null 2>"$TMP/err"
rc=$?
[ $rc = 4 ] || fail "a dump two ranks change: exited $rc, expected 4"
grep -q "^coalcheck: error: --dump bins under MPI: rank 1 changes byte 0 of buffer 'bins', which a lower rank changed too" \
  "$TMP/err" || fail "a dump two ranks change: $(head -c 600 "$TMP/err")"
[ -e "$TMP/bins.json" ] || [ -e "$TMP/bins.bin" ] && fail "a refused dump left a report or a dump"

# 2. the lowest failing block (tests/e2e/emu_jobs.sh derives the message)
mpirun -np 4 "$COALCHECK" "$J" --kernel late_oob --grid 12 --block 32 \
  --arg 'out=u32[160]:zero' --arg n=160 --arg work=200000 -q --json "$TMP/oob.json" \
  >/dev/null 2>"$TMP/err"
rc=$?
[ $rc = 5 ] || fail "late_oob -np 4 exited $rc, expected 5"
grep -q "^coalcheck: error: invalid global write of size 4 at .* by thread (0,0,0) in block (5,0,0)" \
  "$TMP/err" || fail "late_oob -np 4: $(head -c 600 "$TMP/err")"
[ -e "$TMP/oob.json" ] && fail "late_oob -np 4 left a report"

# 3. other inputs on rank 1: its work argument is its rank
mpirun -np 2 bash -c "exec \"$COALCHECK\" \"$J\" --kernel late_oob --grid 4 --block 32 \
  --arg 'out=u32[160]:zero' --arg n=160 --arg work=\$OMPI_COMM_WORLD_RANK -q" \
  >/dev/null 2>"$TMP/err"
rc=$?
[ $rc = 3 ] || fail "differing inputs exited $rc, expected 3"
grep -q "rank 1 of the MPI job has other inputs than rank 0" "$TMP/err" ||
  fail "differing inputs: $(head -c 600 "$TMP/err")"

# 4. rank 1 is killed 2 s into a spin (serial blocks, each stopping after ~6 s)
timeout 300 mpirun -np 2 bash -c "if [ \$OMPI_COMM_WORLD_RANK = 1 ]; then (sleep 2; kill -9 \$\$) & fi;
  exec \"$COALCHECK\" \"$K\" --kernel spin --grid 64 --block 32 --arg 'f=s32[1]:zero' -q \
  --json \"$TMP/dead.json\"" >/dev/null 2>"$TMP/err"
rc=$?
[ $rc != 0 ] || fail "a killed rank: the job exited 0"
grep -q "rank 1" "$TMP/err" || fail "a killed rank is not named: $(head -c 600 "$TMP/err")"
[ -e "$TMP/dead.json" ] && fail "a killed rank: a report was written"

[ "$fails" = 0 ] || exit 1
echo "ok"
