#!/bin/bash
# bench/scale-carry.sh (issue 15's MPI rows, measured on machines without Open MPI): the
# folder it makes from this build and Debian 12's Open MPI
#   1. holds coalcheck, mpirun and every shared library they and the MCA plugins load
#      apart from glibc's, under the device tool's 64 MiB carry limit;
#   2. works from a copy in a mount namespace that hides this machine's Open MPI, PMIx,
#      hwloc and libevent (--check): libmpi, the BTLs and PMIx's plugins load from the
#      folder (LD_DEBUG), both ranks of `mpirun -np 2` may use every core (no binding),
#      and its report is the plain run's;
#   3. a coalcheck built without MPI is refused (exit 2), naming the option.
# Skipped (77) without Debian's Open MPI, an MPI build, root or mount namespaces.
. "$(dirname "$0")/data/common.bash"
[ -x /usr/bin/orterun ] && [ -d /usr/lib/x86_64-linux-gnu/pmix2/lib/pmix ] ||
  { echo "skip: no Debian Open MPI (openmpi-bin, libpmix2)"; exit 77; }
case $(ldd "$COALCHECK") in *libmpi*) ;; *) echo "skip: coalcheck was built without MPI"; exit 77 ;; esac
[ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null || { echo "skip: needs root and mount namespaces"; exit 77; }
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" # Open MPI's own allocations
S="$COALCHECK_SRC/bench/scale-carry.sh"

# 1. the folder
if ! bash "$S" "$(dirname "$COALCHECK")" "$TMP/carry" >"$TMP/out" 2>&1; then
  fail "scale-carry.sh failed: $(head -c 600 "$TMP/out")"
  exit 1
fi
for f in coalcheck env.sh GLIBC ompi/bin/mpirun lib/libmpi.so.40 lib/libpmix.so.2 \
  ompi/lib/x86_64-linux-gnu/openmpi/lib/openmpi3/mca_btl_vader.so pmix/lib/pmix; do
  [ -e "$TMP/carry/$f" ] || fail "the folder lacks $f"
done
[ -L "$TMP/carry/ompi/bin/mpirun" ] && fail "mpirun is a link: links travel as links"
# Open MPI's share (its tree, PMIx's, and the libraries of the MPI stack): 11 MiB here
# (ompi/ 4.8 MiB, pmix/ 0.2 MiB, libmpi, libopen-rte/-pal, libpmix, hwloc, libevent, ...),
# 16 MiB allowed; the whole folder is under 64 MiB for the Release build without libclang
# that bench/scale-carry.sh asks for (this test's build may hold libclang: scale-carry.sh
# then says the folder is over the limit)
mpi_bytes=$(cd "$TMP/carry" && du -scb ompi pmix lib/*mpi* lib/libopen-* lib/libpmix* \
  lib/libhwloc* lib/libevent* lib/libmca_common_* | tail -n1 | cut -f1)
[ "$mpi_bytes" -lt $((16 << 20)) ] || fail "Open MPI's share of the folder is $mpi_bytes bytes"
bytes=$(du -sb "$TMP/carry" | cut -f1)
if [ "$bytes" -ge $((64 << 20)) ]; then
  grep -q "over the device tool's 64 MiB" "$TMP/out" || fail "a $bytes-byte folder without a warning"
fi
grep -q '^mca_base_component_path' "$TMP/carry/pmix/share/pmix-mca-params.conf" &&
  fail "PMIx's parameter file still names /usr's plugin folder"

# 2. from a copy, this machine's Open MPI hidden
(cd "$COALCHECK_SRC" && bash "$S" --check "$TMP/carry") >"$TMP/check" 2>&1 ||
  fail "--check failed: $(tail -c 800 "$TMP/check")"
grep -q '^same report$' "$TMP/check" || fail "--check: no 'same report': $(tail -c 400 "$TMP/check")"
grep -q '^--- processes that initialised libmpi: 2$' "$TMP/check" ||
  fail "--check: not 2 ranks with the folder's libmpi: $(grep processes "$TMP/check")"

# 3. a build without MPI: a binary that links no libmpi
mkdir -p "$TMP/nompi"
cp /bin/true "$TMP/nompi/coalcheck"
bash "$S" "$TMP/nompi" "$TMP/carry2" >/dev/null 2>"$TMP/err"
rc=$?
[ $rc = 2 ] || fail "a build without MPI: exited $rc, expected 2"
grep -q 'built without MPI (-DCOALCHECK_MPI=ON' "$TMP/err" || fail "a build without MPI: $(cat "$TMP/err")"
[ -e "$TMP/carry2" ] && fail "a build without MPI left a folder"
[ "$fails" = 0 ] || exit 1
echo "ok"
