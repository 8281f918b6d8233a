#!/usr/bin/env bash
# Installs what is missing, builds coalcheck, and runs the main job on a bundled example
# (the naive matrix transpose) with the built-in emulator.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
. scripts/env.sh
scripts/build.sh build
exec build/coalcheck --launch examples/transpose/naive.launch "$@"
