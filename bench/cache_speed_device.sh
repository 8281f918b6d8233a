#!/usr/bin/env bash
# Cache model speed on another machine (the device's host CPU): the model-only benchmark
# (bench/cache_speed.c) of several builds, run alternately, best of N per pattern.
#
# Two steps, so that nothing is built on the machine that measures:
#   here:  bench/cache_speed_device.sh --build DIR REV...
#          builds bench/cache_speed.c with src/cache of each git revision REV (a commit,
#          a branch; "." for the working tree) as DIR/cache_speed.NAME (NAME: REV with
#          "/" as "-"), -O2 as bench/cache_speed.sh builds it, and copies libcjson beside
#          them (the machine may lack it)
#   there: bench/cache_speed_device.sh DIR [RECORDS [ROUNDS [SAMPLE...]]]
#          runs every DIR/cache_speed.* on every pattern, ROUNDS rounds (default 5), the
#          builds alternating within a round, for each SAMPLE (default "16 1": --cache
#          h100,sample=N,sample-after=0), RECORDS records a pattern (default 1048576),
#          and prints a markdown table of the best rate (M records per CPU second, the
#          binary's) of the rounds per build, pattern and sample, with the machine; also written to $OUT/cache-speed.md
#          when $OUT is set.
# Rates divide by this thread's CPU time (cache_speed.c). Issue 12's goal: >= 50 M warp
# records/s per core.
set -euo pipefail

if [[ ${1:-} == --build ]]; then
  dir=$2
  shift 2
  root=$(cd "$(dirname "$0")/.." && pwd)
  mkdir -p "$dir"
  for rev in "$@"; do
    name=${rev//\//-}
    [[ $rev == . ]] && name=worktree
    src=$(mktemp -d "${TMPDIR:-/tmp}/cache_speed_src.XXXXXX")
    if [[ $rev == . ]]; then
      cp -r "$root/src" "$root/bench" "$src/"
    else
      git -C "$root" archive "$rev" src/cache src/util src/access bench/cache_speed.c \
        bench/patterns.h | tar x -C "$src"
    fi
    ${CC:-cc} -std=c11 -O2 -D_GNU_SOURCE -Wall -Wextra -I"$src/src" -o "$dir/cache_speed.$name" \
      "$src/bench/cache_speed.c" "$src"/src/cache/*.c "$src/src/util/err.c" \
      "$src/src/util/mem.c" "$src/src/util/fileio.c" "$src/src/access/access.c" \
      $(pkg-config --cflags --libs libcjson) -lm -pthread
    rm -rf "$src"
    echo "built $dir/cache_speed.$name"
  done
  lib=$(ldd "$dir/cache_speed.$name" | awk '/libcjson/ { print $3 }')
  [[ -n $lib ]] && cp -L "$lib" "$dir/"
  exit 0
fi

dir=${1:?usage: bench/cache_speed_device.sh DIR [RECORDS [ROUNDS [SAMPLE...]]] | --build DIR REV...}
records=${2:-1048576}
rounds=${3:-5}
shift $(($# < 3 ? $# : 3))
samples=${*:-16 1}
export LD_LIBRARY_PATH="$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
runs=$(mktemp)
trap 'rm -f "$runs"' EXIT
for r in $(seq "$rounds"); do
  for s in $samples; do
    for bin in "$dir"/cache_speed.*; do
      [[ -x $bin && $bin != *.so* ]] || continue
      "$bin" "$records" "h100,sample=$s,sample-after=0" |
        awk -F'|' -v b="${bin##*/cache_speed.}" -v s="$s" \
          '/^\| [a-z]+ \| [0-9]/ { gsub(/ /, "", $2); print b, s, $2, $5 + 0, $6 + 0 }' >> "$runs"
    done
  done
done
table=$(awk '{ k = $1 " " $2 " " $3; if (!(k in best) || $4 > best[k]) { best[k] = $4; l2[k] = $5 }
               if (!(k in seen)) { seen[k] = 1; order[++n] = k } }
             END { print "| build | sample | pattern | M records/s (best) | L2 sectors |"
                   print "| --- | ---: | --- | ---: | ---: |"
                   for (i = 1; i <= n; i++) { k = order[i]; split(k, f, " ")
                     printf "| %s | %s | %s | %.1f | %d |\n", f[1], f[2], f[3], best[k], l2[k] } }' \
        "$runs")
report="# Cache model speed on $(hostname) ($(date -u '+%Y-%m-%d %H:%M UTC'))

- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores
- command: \`bench/cache_speed_device.sh $dir $records $rounds $samples\` (best of $rounds rounds,
  builds alternating; \`--cache h100,sample=N,sample-after=0\`; M = 10^6 records per CPU second)

$table"
echo "$report"
[[ -n ${OUT:-} ]] && echo "$report" > "$OUT/cache-speed.md"
exit 0
