#!/usr/bin/env bash
# Packs Debian 12's Open MPI (4.1.4, with its external PMIx 4.2, hwloc and libevent) and an
# MPI build of coalcheck into one folder that runs `mpirun -np N coalcheck ...` on a
# machine where neither is installed (the device tool's machines: no Open MPI, no -dev
# packages, no cmake build of coalcheck), for bench/scale.sh's MPI rows (issue 15).
#
# usage: bash bench/scale-carry.sh BUILD_DIR DEST
#   BUILD_DIR  a build of coalcheck with MPI (cmake -DCMAKE_BUILD_TYPE=Release
#              -DCOALCHECK_MPI=ON -DCOALCHECK_LIBCLANG=OFF; ldd shows libmpi)
#   DEST       the folder made (emptied first; about 12 MiB):
#                DEST/coalcheck, DEST/lib      bench/scale.sh's BUILD_DIR form: the binary
#                                              and every shared library that it, mpirun
#                                              and the MCA plugins need, glibc's excepted
#                DEST/ompi/{bin,lib,share,etc} Open MPI's tree (OPAL_PREFIX)
#                DEST/pmix/{lib/pmix,share}    PMIx's tree (PMIX_INSTALL_PREFIX)
#                DEST/env.sh                   sourced there: the relocation and MCA settings
#                DEST/GLIBC                    the newest glibc symbol version the files need
# There:  . DEST/env.sh && SCALE_NP="1 2 4" bash bench/scale.sh DEST OUT
# Check here that the folder is self-contained: bash bench/scale-carry.sh --check DEST
# (runs `mpirun -np 2` from a copy in a mount namespace that hides this machine's Open MPI;
# needs root and unshare).
#
# Relocation: Debian configured Open MPI with --prefix=/usr, libdir
# ${prefix}/lib/x86_64-linux-gnu/openmpi/lib (the MCA plugins in its openmpi3/) and
# --sysconfdir=/etc/openmpi; Open MPI reads OPAL_PREFIX (and OPAL_SYSCONFDIR, outside the
# prefix here) to move them all (Open MPI's FAQ, "relocating an installation"). PMIx 4 reads
# PMIX_INSTALL_PREFIX, and Debian's pmix-mca-params.conf names its plugin folder by an
# absolute path, so the carried copy drops that line and env.sh sets it. Plugins that need
# libraries absent there (UCX, libfabric, PSM, verbs, Java) are left out: the runs use
# ob1 over the self and vader (shared memory) BTLs, on one machine, launched by the
# isolated PLM (no ssh).
set -euo pipefail

# glibc's own libraries: the machine's are used (a carried libc needs its own ld.so)
glibc_re='/(libc|libm|libdl|libpthread|librt|libresolv|libutil|ld-linux-x86-64)\.so'
# plugins needing libraries that the single-machine runs do not use
skip_re='libuc[pstm]|libfabric|libpsm|libibverbs|librdmacm|libjvm|libmpi_java|libmca_common_(ucx|ofi|verbs)|libcuda|libnl-|liboshmem'

# deps FILE...: the resolved shared libraries of the files, one a line
deps() {
  local f
  for f in "$@"; do
    ldd "$f" | awk '$2 == "=>" && $3 ~ /^\// {print $3}'
  done | sort -u
}

check() {
  local src=$1 tmp=/tmp/scale-carry-check.$$ h
  [ "$(id -u)" = 0 ] && command -v unshare >/dev/null || {
    echo "scale-carry.sh --check: needs root and unshare" >&2
    return 2
  }
  rm -rf "$tmp"
  mkdir -p "$tmp/empty"
  cp -a "$src" "$tmp/x"
  # hide the installed Open MPI, PMIx, hwloc and libevent: empty folders and files over them
  h=""
  for p in /usr/lib/x86_64-linux-gnu/openmpi /usr/lib/x86_64-linux-gnu/pmix2 /etc/openmpi \
    /usr/share/openmpi /usr/lib/x86_64-linux-gnu/hwloc; do
    [ -d "$p" ] && h="$h mount --bind $tmp/empty $p;"
  done
  for p in /usr/lib/x86_64-linux-gnu/lib{mpi,open-rte,open-pal,pmix,hwloc,event}*.so* \
    /usr/lib/x86_64-linux-gnu/libmca_common_*.so* /usr/bin/orterun /usr/bin/orted; do
    [ -f "$p" ] && [ ! -L "$p" ] && h="$h mount --bind /dev/null $p;"
  done
  unshare -m bash -c "set -e; $h
    export LD_LIBRARY_PATH= PATH=/usr/bin:/bin
    if /sbin/ldconfig -p | grep -q 'libmpi.so.40 .*=> /usr' && [ -s /usr/lib/x86_64-linux-gnu/libmpi.so.40 ]; then
      echo 'not hidden'; exit 1; fi
    . $tmp/x/env.sh
    echo '--- which mpirun:' \$(command -v mpirun)
    echo '--- coalcheck libraries (ldd):'; ldd $tmp/x/coalcheck | grep -E 'mpi|open-|pmix|hwloc|event'
    echo \"--- cores each of 2 ranks may use: \$(mpirun -np 2 nproc | sort -u | tr '\\n' ' ')(this machine: \$(nproc))\"
    [ \"\$(mpirun -np 2 nproc | sort -u)\" = \"\$(nproc)\" ] || { echo 'FAILED: the ranks are bound to fewer cores'; exit 1; }
    echo '--- mpirun -np 2 coalcheck, a 4-CTA kernel, against the plain run:'
    k=$tmp/x/k.ptx; cp tests/e2e/data/kernels.ptx \$k
    a=\"\$k --kernel scale --grid 4 --block 64 --arg out=f32[n]:zero --arg in=f32[n]:random:3 --arg n=256 --arg a=3 -q\"
    $tmp/x/coalcheck \$a --json $tmp/p.json >/dev/null
    LD_DEBUG=libs mpirun -np 2 $tmp/x/coalcheck \$a --json $tmp/m.json >/dev/null 2>$tmp/ld.log
    echo '--- where the libraries came from (LD_DEBUG=libs, calling init, a sample):'
    grep -E 'calling init: .*(libmpi|libpmix|mca_btl_vader|mca_pml_ob1|mca_plm_isolated|pmix_mca_prm)' $tmp/ld.log | sed 's/^ *[0-9]*: *//' | sort | uniq -c
    echo \"--- processes that initialised libmpi: \$(grep -c 'calling init: .*libmpi.so' $tmp/ld.log)\"
    if grep -E 'calling init: (/usr|/lib)/.*(libmpi|open-|pmix|hwloc|libevent|mca_)' $tmp/ld.log; then
      echo 'FAILED: a library came from this machine'; exit 1; fi
    python3 -c 'import json,sys
n = [json.load(open(f)) for f in sys.argv[1:]]
for d in n:
    [k[\"emulator\"].pop(\"seconds\") for k in d[\"kernels\"]]
print(\"same report\" if n[0] == n[1] else \"REPORTS DIFFER\")
sys.exit(n[0] != n[1])' $tmp/p.json $tmp/m.json"
  local rc=$?
  rm -rf "$tmp"
  return $rc
}

if [ "${1:-}" = --check ]; then
  cd "$(dirname "$0")/.."
  check "${2:?usage: bash bench/scale-carry.sh --check DEST}"
  exit
fi

build=${1:?usage: bash bench/scale-carry.sh BUILD_DIR DEST}
dest=${2:?usage: bash bench/scale-carry.sh BUILD_DIR DEST}
cc=$build/coalcheck
mpilib=/usr/lib/x86_64-linux-gnu
ompilib=$mpilib/openmpi/lib
pmixdir=$mpilib/pmix2
# (ldd's output taken whole: grep -q stopping early would fail the pipe under pipefail)
case $(ldd "$cc" 2>/dev/null) in *libmpi*) ;; *) false ;; esac || {
  echo "scale-carry.sh: $cc was built without MPI (-DCOALCHECK_MPI=ON, libopenmpi-dev)" >&2
  exit 2
}
[ -x /usr/bin/orterun ] && [ -d "$ompilib/openmpi3" ] && [ -d "$pmixdir/lib/pmix" ] || {
  echo "scale-carry.sh: Debian 12's Open MPI is not installed here (openmpi-bin libopenmpi3 libpmix2)" >&2
  exit 2
}

rm -rf "$dest"
mkdir -p "$dest/lib" "$dest/ompi/bin" "$dest/ompi/lib/x86_64-linux-gnu/openmpi/lib/openmpi3" \
  "$dest/ompi/share" "$dest/ompi/etc" "$dest/pmix/lib/pmix" "$dest/pmix/share"
cp "$cc" "$dest/coalcheck"
# mpirun is orterun (Debian's alternatives link); a copy, not a link, so that it travels
for b in orterun orted; do cp /usr/bin/$b "$dest/ompi/bin/"; done
cp /usr/bin/orterun "$dest/ompi/bin/mpirun"
plugins=()
for p in "$ompilib"/openmpi3/mca_*.so; do
  if ldd "$p" | grep -E "$skip_re" >/dev/null; then continue; fi
  cp "$p" "$dest/ompi/lib/x86_64-linux-gnu/openmpi/lib/openmpi3/"
  plugins+=("$p")
done
cp "$pmixdir"/lib/pmix/*.so "$dest/pmix/lib/pmix/"
cp -r /usr/share/openmpi "$dest/ompi/share/"
cp -r "$pmixdir/share/pmix" "$dest/pmix/share/"
# the component path is set by env.sh, where the folder lies there
grep -v '^mca_base_component_path' "$pmixdir/share/pmix-mca-params.conf" \
  >"$dest/pmix/share/pmix-mca-params.conf"
cp /etc/openmpi/openmpi-mca-params.conf /etc/openmpi/openmpi-default-hostfile "$dest/ompi/etc/"
# every library the binaries and plugins need (twice: the libraries' own), glibc's excepted
libs=$(deps "$cc" /usr/bin/orterun /usr/bin/orted "${plugins[@]}" "$pmixdir"/lib/pmix/*.so)
libs=$( (echo "$libs"; deps $libs) | sort -u | grep -vE "$glibc_re")
for l in $libs; do cp -L "$l" "$dest/lib/"; done
# the newest GLIBC_x.y any carried file needs: the machine there must have it
find "$dest" -type f \( -name '*.so*' -o -perm -u+x \) -exec objdump -T {} + 2>/dev/null |
  grep -o 'GLIBC_[0-9.]*' | sort -u -V | tail -n1 >"$dest/GLIBC"

cat >"$dest/env.sh" <<'EOF'
# Sourced (bash) where this folder was carried: its Open MPI and coalcheck, relocated.
d=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export PATH="$d/ompi/bin:$d:$PATH"
export LD_LIBRARY_PATH="$d/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export OPAL_PREFIX="$d/ompi"          # Open MPI's compiled-in prefix is /usr
export OPAL_SYSCONFDIR="$d/ompi/etc"  # /etc/openmpi, outside the prefix in Debian
export PMIX_INSTALL_PREFIX="$d/pmix"  # /usr/lib/x86_64-linux-gnu/pmix2
export PMIX_MCA_mca_base_component_path="$d/pmix/lib/pmix"
export PMIX_MCA_gds=hash              # no shared-memory key store (containers)
# one machine: no ssh (isolated PLM), ob1 over self and shared memory, more ranks than
# cores allowed, root allowed (the device's commands run as root), and no binding: Open
# MPI 4.1 binds each rank to one core when there are at most 2 ranks (to a socket above),
# which runs a rank's --jobs threads on one core. Where CMA (process_vm_readv, the shared
# memory BTL's single copy) is denied, bench/scale-mpi.sh falls back to
# OMPI_MCA_btl_vader_single_copy_mechanism=none.
export OMPI_MCA_plm=isolated OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader
export OMPI_MCA_hwloc_base_binding_policy=none
export OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_mca_base_component_show_load_errors=1
EOF
echo "scale-carry.sh: $dest: $(du -sh "$dest" | cut -f1), $(ls "$dest/lib" | wc -l) libraries, \
${#plugins[@]} MCA plugins, needs $(cat "$dest/GLIBC")"
if [ "$(du -sb "$dest" | cut -f1)" -ge $((64 << 20)) ]; then
  echo "scale-carry.sh: warning: $dest is over the device tool's 64 MiB carry limit" \
    "(a build with libclang? -DCOALCHECK_LIBCLANG=OFF)" >&2
fi
