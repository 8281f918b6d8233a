#!/usr/bin/env bash
# The MPI tables of issue 15 on a machine without Open MPI (the device tool's 16-core
# machines), in one call: the folder that bench/scale-carry.sh made (Open MPI relocated,
# an MPI build of coalcheck), a check that `mpirun -np 2` works there and gives each rank
# every core (the fallbacks tried, each one's error printed, when it does not), then
# bench/scale.sh with --cache off and with the default cache model: the transposes under
# `mpirun -np 1/2/4/8/16` with ranks x --jobs = the cores and with --jobs 1 per rank, the
# covariance kernel (9.7 M records: rank 0 receives them all) under -np 2 and 16 with
# ranks x --jobs = the cores; each against one process's --jobs 1 and --jobs 16.
#
# usage: bash bench/scale-mpi.sh CARRY OUT
#   CARRY  bench/scale-carry.sh's folder (made here: bash bench/scale-carry.sh build-mpi CARRY)
#   OUT    where the tables (scale-mpi-{transposes,covariance}-cache-{off,on}.md), the MPI
#          settings used (scale-mpi-env.txt) and the raw reports (scale-mpi-raw.tgz) go
#   SCALE_MPI_TIMEOUT (default 110) seconds for each of the 4 tables; a table cut short
#          keeps its rows so far and says so
#   SCALE_MPI_NP (default "1 2 4 8 16"), SCALE_MPI_COV_NP (default "2 16"): the ranks;
#   SCALE_MPI_TABLES (default all four: "transposes-cache-off transposes-cache-on
#          covariance-cache-off covariance-cache-on")
# Device tool (about 7 minutes on its 16-core machines): carry CARRY and run
#   bash bench/scale-mpi.sh CARRY $OUT
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
carry=$(cd "${1:?usage: bash bench/scale-mpi.sh CARRY OUT}" && pwd)
out=${2:?usage: bash bench/scale-mpi.sh CARRY OUT}
mkdir -p "$out"
work=$(mktemp -d)
# shellcheck disable=SC1091
. "$carry/env.sh"

echo "== machine: $(nproc) cores, $(ldd --version | head -n1); carried files need $(cat "$carry/GLIBC");" \
  "/dev/shm $(df -h /dev/shm 2>/dev/null | awk 'NR == 2 {print $2}'); /usr/bin/time: $([ -x /usr/bin/time ] && echo yes || echo no)"

# a launch of 65,536 records (rank 1 sends 8 messages of 4096), plain and under
# mpirun -np 2: the same JSON report (less "seconds")?
small="$here/scale/transpose.ptx --kernel _Z15transpose_naivePfPKfi --grid 32,128 --block 32,8
  --arg out=f32[n*n]:zero --arg in=f32[n*n]:random:1 --arg n=1024 -q"
norm() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
for k in d["kernels"]: k["emulator"].pop("seconds", None)
print(json.dumps(d, sort_keys=True))' "$1"; }
# shellcheck disable=SC2086 # the launch's words
"$carry/coalcheck" $small --jobs 1 --json "$work/plain.json" >/dev/null
preflight() {
  rm -f "$work/mpi.json"
  # shellcheck disable=SC2086
  timeout 30 mpirun -np 2 "$carry/coalcheck" $small --jobs 1 --json "$work/mpi.json" \
    >"$work/pre.out" 2>&1 && [ "$(norm "$work/plain.json")" = "$(norm "$work/mpi.json")" ]
}
mpi_ok=""
for try in carried no-single-copy no-isolated-plm tcp-btl no-gds-hash; do
  case $try in
  no-single-copy) export OMPI_MCA_btl_vader_single_copy_mechanism=none ;;
  no-isolated-plm) unset OMPI_MCA_plm ;;
  tcp-btl) export OMPI_MCA_btl=self,tcp ;;
  no-gds-hash) unset PMIX_MCA_gds ;;
  esac
  if preflight; then
    mpi_ok=$try
    echo "== mpirun -np 2 works ($try settings): the same report as the plain run"
    break
  fi
  echo "== mpirun -np 2 failed with the $try settings (exit or report differs):"
  head -c 2000 "$work/pre.out"
  echo
done
if [ -n "$mpi_ok" ]; then
  echo "== cores each rank may use (mpirun -np 2 --bind-to none nproc): $(mpirun -np 2 --bind-to none nproc | tr '\n' ' ')"
  env | grep -E '^(OMPI_MCA|PMIX_MCA|OPAL_)' | sort >"$out/scale-mpi-env.txt"
fi

table() { # table NAME CASES NP NP_JOBS SCALE_EXTRA
  local name=$1 t=${SCALE_MPI_TIMEOUT:-110} rc
  [ -n "$mpi_ok" ] || set -- "$1" "$2" "" "$4" "$5"
  SCALE_JOBS="1 16" SCALE_CASES=$2 SCALE_NP=$3 SCALE_NP_JOBS=$4 SCALE_TRACES="" SCALE_EXTRA=$5 \
    timeout "$t" bash "$here/scale.sh" "$carry" "$work/$name" 2>/dev/null
  rc=$?
  cp "$work/$name"/scale-*.md "$out/scale-mpi-$name.md" 2>/dev/null
  [ $rc = 0 ] || printf '\n(cut short after %s s: exit %s)\n' "$t" "$rc" >>"$out/scale-mpi-$name.md"
  echo "== $name: $(grep -cE '^\| (naive|tiled|covariance) ' "$out/scale-mpi-$name.md" 2>/dev/null) rows, exit $rc"
}
np=${SCALE_MPI_NP:-1 2 4 8 16}
cov_np=${SCALE_MPI_COV_NP:-2 16}
for name in ${SCALE_MPI_TABLES:-transposes-cache-off transposes-cache-on covariance-cache-off covariance-cache-on}; do
  case $name in
  transposes-cache-off) table "$name" "naive tiled" "$np" "fill 1" "--cache off" ;;
  transposes-cache-on) table "$name" "naive tiled" "$np" "fill 1" "" ;;
  covariance-cache-off) table "$name" covariance "$cov_np" fill "--cache off" ;;
  covariance-cache-on) table "$name" covariance "$cov_np" fill "" ;;
  esac
done
# the raw reports, less the dumps
(cd "$work" && tar czf "$out/scale-mpi-raw.tgz" --exclude='*.bin' ./*-cache-* 2>/dev/null)
rm -rf "$work"
echo "== MPI: ${mpi_ok:-not working (see above)}"
