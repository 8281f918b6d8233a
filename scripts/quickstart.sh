#!/usr/bin/env bash
# Installs what is missing, builds coalcheck, and runs the main job on a bundled example
# (the naive matrix transpose) with the built-in emulator.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
. scripts/env.sh
echo "quickstart: building coalcheck (log: build/quickstart-build.log)" >&2
mkdir -p build
if ! { cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo &&
       cmake --build build --target coalcheck -j"$(nproc)"; } > build/quickstart-build.log 2>&1; then
  cat build/quickstart-build.log >&2
  echo "quickstart: the build failed (log above)" >&2
  exit 1
fi
echo "quickstart: build/coalcheck --launch examples/transpose/naive.launch" >&2
exec build/coalcheck --launch examples/transpose/naive.launch "$@"
