#!/usr/bin/env bash
# Trace file speed benchmark: records per second written and replayed, and bytes per
# record, for eight access patterns at zstd levels 1 and 3 (see bench/trace_speed.c).
#
# usage: bench/trace_speed.sh [-o RESULT.md] [RECORDS]
#   RECORDS  records per pattern (default 8388608)
# Writes bench/results/trace-speed-YYYY-MM-DD.md (or -o) with the date, the machine, the
# command and the numbers, and prints it. The program is compiled straight from the
# sources (-O2, as the RelWithDebInfo build), so no CMake target is needed; it needs
# libzstd-dev. Files go to $TMPDIR (default /tmp) and are removed.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
out=""
if [[ ${1:-} == -o ]]; then
  out=$2
  shift 2
fi
records=${1:-8388608}
[[ -n $out ]] || out="$root/bench/results/trace-speed-$(date -u +%Y-%m-%d).md"

work=$(mktemp -d "${TMPDIR:-/tmp}/trace_speed.XXXXXX")
trap 'rm -rf "$work"' EXIT
cc=${CC:-cc}
$cc -std=c11 -O2 -D_GNU_SOURCE -Wall -Wextra -I"$root/src" -o "$work/trace_speed" \
  "$root/bench/trace_speed.c" "$root/src/access/trace.c" "$root/src/access/access.c" \
  "$root/src/util/err.c" "$root/src/util/mem.c" "$root/src/util/fileio.c" \
  $(pkg-config --cflags --libs libzstd) -lm

table=$("$work/trace_speed" "$work" "$records")
fs=$(df -T "$work" | awk 'NR == 2 { print $2 }')
{
  echo "# Trace file speed ($(date -u +%Y-%m-%d))"
  echo
  echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $(. /etc/os-release && echo "$PRETTY_NAME"), $($cc --version | head -n1), zstd $(pkg-config --modversion libzstd); files on $fs"
  echo "- command: \`bench/trace_speed.sh $records\` (one thread; block size 1 MiB)"
  echo "- columns: write = records/s into the writer (zstd and file I/O included, record"
  echo "  generation excluded), write+gen = including it, read = cc_trace_replay into a"
  echo "  counting sink (file read, CRC, zstd, decode); M = 10^6"
  echo
  echo "$table"
} > "$out"
cat "$out"
