#!/bin/bash
# The Debian package of this build folder (scripts/test-deb.sh: CPack, Depends, files, the
# quick-start kernel run from it), unpacked with dpkg -x into a temporary root: under
# ctest the system is not touched (scripts/test.sh runs the dpkg -i step once, after the
# tests). Skipped (77) without dpkg-deb or cpack.
. "$(dirname "$0")/data/common.bash"
BUILD="$(cd "$(dirname "$COALCHECK")" && pwd)"
[ -f "$BUILD/CPackConfig.cmake" ] || { echo "skip: $BUILD is not a CMake build folder"; exit 77; }
COALCHECK_DEB_EXTRACT=1 bash "$COALCHECK_SRC/scripts/test-deb.sh" "$BUILD"
