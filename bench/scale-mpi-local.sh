#!/usr/bin/env bash
# Two coalcheck builds side by side under `mpirun -np 2` on a small machine (the 2-core
# development one): the naive transpose at N² (default 2048²), --cache off (the ranks
# reduce their figures) and with the cache model (the ranks gather their records), plain
# --jobs 1 and 2 and `mpirun -np 2 --oversubscribe --bind-to none` with --jobs 1 and 2;
# then the input hash's share: one CTA over 2 x 64 MiB buffers (n = 4096), plain and
# -np 2. Each rep runs BEFORE then AFTER, so that both see the same load; prints markdown
# rows of the best and median wall seconds, and of the report's emulator seconds (rank
# 0's run of the kernel: its CTAs, then the other ranks' figures merged or records
# gathered; setup and MPI_Init excluded).
# usage: bash bench/scale-mpi-local.sh BEFORE AFTER   (REPS, default 7; N, default 2048)
set -uo pipefail
before=${1:?usage: bash bench/scale-mpi-local.sh BEFORE AFTER}
after=${2:?usage: bash bench/scale-mpi-local.sh BEFORE AFTER}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
n=${N:-2048}
launch() { # launch N GRID_X GRID_Y
  echo "$here/scale/transpose.ptx --kernel _Z15transpose_naivePfPKfi --grid $2,$3 --block 32,8
    --arg out=f32[n*n]:zero --arg in=f32[n*n]:random:1 --arg n=$1 -q"
}
ms() { # ms CMD...: wall milliseconds of CMD (a failure is printed)
  local s e
  s=$(date +%s%N)
  "$@" >/dev/null 2>"$work/err" || { echo "FAILED: $* $(head -c 300 "$work/err")" >&2; }
  e=$(date +%s%N)
  echo $(((e - s) / 1000000))
}
stats() { sort -n | awk '{a[NR] = $1} END {printf "%.2f / %.2f", a[1] / 1000, a[int((NR + 1) / 2)] / 1000}'; }
rows() { # rows LABEL LAUNCH EXTRA CONFIGS...
  local label=$1 l=$2 extra=$3 cfg
  shift 3
  for cfg in "$@"; do
    set -- $cfg
    : >"$work/before"
    : >"$work/after"
    : >"$work/before.emu"
    : >"$work/after.emu"
    for _ in $(seq 1 "${REPS:-7}"); do
      for bin in before after; do
        local b=$before
        [ $bin = after ] && b=$after
        # shellcheck disable=SC2086 # the launch's words
        if [ "$1" = plain ]; then ms "$b" $l $extra --jobs "$2" --json "$work/r.json" >>"$work/$bin"
        else ms mpirun -np 2 --bind-to none "$b" $l $extra --jobs "$2" --json "$work/r.json" >>"$work/$bin"; fi
        jq '.kernels[0].emulator.seconds * 1000' "$work/r.json" >>"$work/$bin.emu"
      done
    done
    echo "| $label | ${extra:-cache on} | $1 --jobs $2 | $(stats <"$work/before") | $(stats <"$work/after") | $(stats <"$work/before.emu") | $(stats <"$work/after.emu") |"
  done
}
echo "| case | cache | run | before: wall s, best / median | after: wall s | before: emulator s | after: emulator s |"
echo "| --- | --- | --- | ---: | ---: | ---: | ---: |"
for cache in "--cache off" ""; do
  rows "naive $n²" "$(launch "$n" $((n / 32)) $((n / 8)))" "$cache" "plain 1" "plain 2" "np2 1" "np2 2"
done
rows "1 CTA, 2 x 64 MiB" "$(launch 4096 1 1)" "--cache off" "plain 1" "np2 1"
rm -rf "$work"
