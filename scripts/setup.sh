#!/usr/bin/env bash
# Installs the Debian packages coalcheck needs to build and test, if any is missing.
# Needs root (or sudo) only when something must be installed. The CUDA toolkit (nvcc) is
# a prerequisite, not installed here: see README.md.
set -euo pipefail

packages=(gcc g++ make cmake pkg-config libcjson-dev libcmocka-dev libzstd-dev python3 python3-pip time
          libopenmpi-dev openmpi-bin # the optional MPI runs (src/cli/mpi.c)
          clang libclang-dev libclang-rt-14-dev libisl-dev
          python3-yaml  # reads docs/ci.md's CI job (tests/e2e/ci_example.sh)
          chromium  # chromium: the browser tests of the --html views (tests/e2e/html_views.sh)
          dpkg-dev file zsh) # the .deb's Depends (dpkg-shlibdeps, CPack needs file);
                             # zsh -n on the zsh completion (tests/e2e/man_completion.sh)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if ! command -v nvcc >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "setup: warning: nvcc not found (PATH or /usr/local/cuda/bin); .cu inputs and the" \
       "tests that compile CUDA will be skipped" >&2
fi

# jsonschema validates the --sarif output against the vendored official SARIF 2.1.0 schema
# (tests/e2e/ci_gates.sh, tests/data/sarif-schema-2.1.0.json)
if ! python3 -c 'import jsonschema' >/dev/null 2>&1; then
  echo "setup: installing jsonschema (pip)" >&2
  python3 -m pip install --quiet jsonschema 2>/dev/null ||
    python3 -m pip install --quiet --break-system-packages jsonschema
fi

# Playwright for Python drives the system chromium in tests/e2e/html_views.sh (it is given
# chromium's path: no browser is downloaded, so no `playwright install`)
if ! python3 -c 'import playwright.sync_api' >/dev/null 2>&1; then
  echo "setup: installing playwright (pip)" >&2
  python3 -m pip install --quiet playwright 2>/dev/null ||
    python3 -m pip install --quiet --break-system-packages playwright
fi
