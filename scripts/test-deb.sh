#!/usr/bin/env bash
# The Debian package of a build folder ($1, default build): CPack builds it
# (cmake/install.cmake), its Depends are checked against the packages that own the
# libraries the binary links (ldd + dpkg -S, not dpkg-shlibdeps, which made them), it is
# installed with `dpkg -i` into the system, the installed coalcheck runs the README's
# quick-start kernel (examples/transpose/naive.launch, as scripts/quickstart.sh does) and
# its figures are checked, and the package is removed (`dpkg --purge`): the machine is
# left as it was.
#
# Where dpkg -i is not ours to run (not root, a coalcheck package already installed, or
# COALCHECK_DEB_EXTRACT=1 as tests/e2e/deb_package.sh sets under ctest), the package is
# unpacked with `dpkg -x` into a temporary root and run from there; the last line says
# which. Exit 77 (skip) without dpkg-deb or cpack (not Debian); 1 on a failed check.
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
BUILD=$(cd "${1:-build}" 2>/dev/null && pwd) || { echo "test-deb: no build folder ${1:-build}" >&2; exit 1; }
for t in dpkg-deb cpack; do
  command -v $t >/dev/null || { echo "test-deb: skip: $t not found (not a Debian system)"; exit 77; }
done
[ -f "$BUILD/CPackConfig.cmake" ] || { echo "test-deb: $BUILD has no CPackConfig.cmake" >&2; exit 1; }
command -v dpkg-shlibdeps >/dev/null ||
  { echo "test-deb: dpkg-shlibdeps (dpkg-dev) is missing: the package would have no Depends" >&2; exit 1; }

TMP=$(mktemp -d "${TMPDIR:-/tmp}/cc-deb-XXXXXX")
installed=0 # 1 while our package is installed in the system
cleanup() {
  [ "$installed" = 1 ] && dpkg --purge coalcheck >/dev/null 2>&1
  rm -rf "$TMP"
}
trap cleanup EXIT
fails=0
fail() {
  echo "test-deb: FAIL: $*"
  fails=$((fails + 1))
}

# --- build it ---
if ! cpack --config "$BUILD/CPackConfig.cmake" -G DEB -B "$TMP/pkg" >"$TMP/cpack.log" 2>&1; then
  cat "$TMP/cpack.log"
  echo "test-deb: FAIL: cpack failed"
  exit 1
fi
deb=$(ls "$TMP"/pkg/coalcheck_*.deb 2>/dev/null | head -n1)
[ -n "$deb" ] || { cat "$TMP/cpack.log"; echo "test-deb: FAIL: no coalcheck_*.deb"; exit 1; }
echo "test-deb: built $(basename "$deb") ($(du -k "$deb" | cut -f1) KiB)"

# --- its fields and files ---
depends=$(dpkg-deb -f "$deb" Depends)
echo "test-deb: Depends: $depends"
# every library the build's binary links (NEEDED; ldd says where it is), by the package
# that owns its file
ldd "$BUILD/coalcheck" >"$TMP/ldd"
for name in $(readelf -d "$BUILD/coalcheck" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
  lib=$(awk -v n="$name" '$1 == n && $2 == "=>" {print $3}' "$TMP/ldd")
  [ -n "$lib" ] || { fail "ldd does not find $name"; continue; }
  owner=$(dpkg -S "$(readlink -f "$lib")" 2>/dev/null | head -n1 | cut -d: -f1) ||
    owner=$(dpkg -S "$lib" 2>/dev/null | head -n1 | cut -d: -f1)
  [ -n "$owner" ] || { echo "test-deb: note: $lib belongs to no package"; continue; }
  case ", $depends," in
    *", $owner "* | *", $owner,"* | *"| $owner "* | *"| $owner,"*) ;;
    *) fail "Depends lacks $owner (the package of $lib)" ;;
  esac
done
for p in libisl23 libcjson1 libzstd1; do # what the issue names; libclang1-14 when linked
  case "$depends" in *"$p "* | *"$p,"* | *"$p") ;; *) fail "Depends lacks $p" ;; esac
done
dpkg-deb -c "$deb" | awk '{print $6}' >"$TMP/files"
for f in ./usr/bin/coalcheck ./usr/lib/coalcheck/coalcheck-gpu-launch \
         ./usr/share/man/man1/coalcheck.1 ./usr/share/bash-completion/completions/coalcheck \
         ./usr/share/zsh/site-functions/_coalcheck ./usr/share/doc/coalcheck/README.md \
         ./usr/share/coalcheck/examples/transpose/naive.launch; do
  grep -qxF "$f" "$TMP/files" || fail "the package lacks $f"
done
if [ -f "$BUILD/src/gpu/libcoalcheck_gpu.so" ]; then
  grep -qxF ./usr/lib/coalcheck/libcoalcheck_gpu.so "$TMP/files" ||
    fail "libcoalcheck_gpu.so was built but is not in the package"
fi

# --- install it ---
if [ "$(id -u)" -eq 0 ] && [ "${COALCHECK_DEB_EXTRACT:-0}" != 1 ] &&
   ! dpkg -s coalcheck >/dev/null 2>&1; then
  mode="dpkg -i into the system"
  ROOT=
  installed=1
  dpkg -i "$deb" >"$TMP/dpkg.log" 2>&1 || { cat "$TMP/dpkg.log"; fail "dpkg -i failed"; exit 1; }
  [ "$(command -v coalcheck)" = /usr/bin/coalcheck ] ||
    fail "after dpkg -i, coalcheck on PATH is '$(command -v coalcheck)'"
  if command -v man >/dev/null; then
    [ "$(man -w coalcheck 2>/dev/null)" = /usr/share/man/man1/coalcheck.1 ] ||
      fail "man -w coalcheck: '$(man -w coalcheck 2>&1)'"
  fi
else
  mode="dpkg -x into a temporary root"
  [ "$(id -u)" -eq 0 ] || mode="$mode (not root)"
  dpkg -s coalcheck >/dev/null 2>&1 && mode="$mode (a coalcheck package is installed already)"
  ROOT="$TMP/root"
  dpkg -x "$deb" "$ROOT" || { fail "dpkg -x failed"; exit 1; }
fi
BIN="$ROOT/usr/bin/coalcheck"

# --- run it ---
"$BIN" --version >"$TMP/version" 2>&1 || fail "installed coalcheck --version exited $?"
"$BUILD/coalcheck" --version | cmp -s - "$TMP/version" ||
  fail "the installed --version differs from the build's: $(cat "$TMP/version")"
bash -c ". '$ROOT/usr/share/bash-completion/completions/coalcheck' && complete -p coalcheck" \
  >/dev/null 2>&1 || fail "the installed bash completion does not load"
# the quick-start kernel, from another folder. Figures by hand (transpose.cu, n = 1024,
# 32 x 128 CTAs of 8 warps): 32,768 requests each for the load and the store; the load
# takes 4 sectors per request, the store 32 (one float of each 32-byte sector): 1,179,648
# sectors, ideal 8 per request pair = 262,144
mkdir -p "$TMP/run"
if [ -n "$(command -v nvcc || true)" ]; then
  (cd "$TMP/run" && "$BIN" -q --launch "$ROOT/usr/share/coalcheck/examples/transpose/naive.launch") \
    >"$TMP/report" 2>"$TMP/err" || { cat "$TMP/err"; fail "the quick-start run exited $?"; }
  grep -qF "global: 65,536 requests, 1,179,648 sectors, ideal 262,144" "$TMP/report" ||
    fail "quick start: $(head -n4 "$TMP/report")"
  grep -qF "transpose.cu:26" "$TMP/report" || fail "quick start: no source line transpose.cu:26"
else
  echo "test-deb: note: nvcc not found: the quick-start kernel (.cu) is not run"
fi

# --- remove it ---
if [ "$installed" = 1 ]; then
  dpkg --purge coalcheck >"$TMP/dpkg.log" 2>&1 || { cat "$TMP/dpkg.log"; fail "dpkg --purge failed"; }
  installed=0
  dpkg -s coalcheck >/dev/null 2>&1 && fail "coalcheck is still installed after dpkg --purge"
  [ ! -e /usr/bin/coalcheck ] && [ ! -e /usr/lib/coalcheck ] && [ ! -e /usr/share/doc/coalcheck ] ||
    fail "files left after dpkg --purge"
fi
if [ "$fails" -ne 0 ]; then
  echo "test-deb: $fails check(s) failed ($mode)"
  exit 1
fi
echo "test-deb: ok ($mode)"
