#!/bin/bash
# Size and opening time of the --html page (src/view) for the naive transpose at 4096^2
# (65,536 CTAs, 524,288 warps): file bytes, the run's time with and without --html, and
# the page's first contentful paint in headless Chromium (bench/html_size.py).
# Usage: bench/html_size.sh [BUILD_DIR]   (default build)
set -e
cd "$(dirname "$0")/.."
B=${1:-build}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
run() { /usr/bin/time -f "%e s, %M KB max RSS" "$B/coalcheck" examples/transpose/transpose.cu \
  --launch bench/transpose_naive_4096.launch -q "$@" >/dev/null; }
echo "without --html: $(run 2>&1 | tail -1)"
echo "with --html:    $(run --html "$T/naive4096.html" 2>&1 | tail -1)"
echo "page bytes: $(stat -c %s "$T/naive4096.html")"
python3 bench/html_size.py "$T/naive4096.html" "$(command -v chromium)"
