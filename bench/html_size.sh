#!/bin/bash
# Size and opening time of the --html page (src/view) for the naive transpose at 4096^2
# (65,536 CTAs, 524,288 warps): file bytes, the run's time with and without --html, and
# the page's first contentful paint in headless Chromium (bench/html_size.py).
# Usage: bench/html_size.sh [BUILD_DIR [ARCH_LIST]]   (default build; ARCH_LIST e.g.
# cc1.0,cc1.2,cc2.0,sm_90: the views under every model, the largest page)
set -e
cd "$(dirname "$0")/.."
B=${1:-build}
ARCH=()
[ -n "${2:-}" ] && ARCH=(--arch "$2")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
run() { /usr/bin/time -f "%e s, %M KB max RSS" "$B/coalcheck" examples/transpose/transpose.cu \
  --launch bench/transpose_naive_4096.launch "${ARCH[@]}" -q "$@" >/dev/null; }
echo "without --html: $(run 2>&1 | tail -1)"
echo "with --html:    $(run --html "$T/naive4096.html" 2>&1 | tail -1)"
echo "page bytes: $(stat -c %s "$T/naive4096.html")"
python3 bench/html_size.py "$T/naive4096.html" "$(command -v chromium)"
