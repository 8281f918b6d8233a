#!/usr/bin/env bash
# The cache model's cost on the merger thread of an emulator run with --jobs N (the one
# thread that takes the workers' records in CTA order), per record it receives, with the
# records a worker cuts to their sampled lanes (src/cache/drop.c) sent on one by one
# ("cut", session 10's stream) and with the repeated stores folded ("fold": a cut
# global store held back, the identical ones after it counted in it, today's):
# bench/cut_merger.c over the traces of bench/scale/cases.bash's naive transpose and
# covariance kernel (covariance at m=1024: a quarter of the records), the default model
# (h100, sample=16 after 65536 records).
# Figures: the records the merger receives, the cut ones, the stores folded into them
# and the lanes a cut, its CPU seconds (best of 3) and ns per record received and per
# record of the kernel, the workers' decisions (cc_cache_drop: ns per record of the
# kernel), and the host instructions inside cc_cache_access per record received under
# callgrind (the figure that does not depend on the machine's load; left out without
# valgrind).
#
# usage: bench/cut_merger.sh [-o RESULT.md]   (run from anywhere; COALCHECK: the binary,
#        default build/coalcheck, records the traces)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
out=""
if [[ ${1:-} == -o ]]; then
  out=$2
  shift 2
fi
coalcheck=${COALCHECK:-$root/build/coalcheck}
work=$(mktemp -d "${TMPDIR:-/tmp}/cut_merger.XXXXXX")
trap 'rm -rf "$work"' EXIT
cc=${CC:-cc}
$cc -std=c11 -O2 -D_GNU_SOURCE -Wall -Wextra -I"$root/src" -o "$work/cut_merger" \
  "$root/bench/cut_merger.c" "$root"/src/cache/*.c "$root"/src/access/*.c \
  "$root"/src/util/*.c $(pkg-config --cflags --libs libcjson libzstd) -lm -pthread

cd "$root"
. bench/scale/cases.bash
"$coalcheck" record $(case_args naive) -q -o "$work/naive.cctrace" > /dev/null
"$coalcheck" record $(case_args covariance | sed 's/m=2048/m=1024/') -q \
  -o "$work/covariance.cctrace" > /dev/null

table="| kernel | stream | records | to the merger | cut | stores folded | lanes a cut | merger CPU s (best of 3) | ns a record received | ns a record of the kernel | worker's decision, ns a record | instructions a record received (callgrind) |"$'\n'
table+="| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"$'\n'
for k in naive covariance; do
  for mode in cut fold; do
    best=""
    for i in 1 2 3; do
      row=$("$work/cut_merger" "$work/$k.cctrace" h100 "$mode")
      t=$(echo "$row" | awk -F'|' '{print $9 + 0}')
      if [[ -z $best ]] || awk -v a="$t" -v b="$best_t" 'BEGIN { exit !(a < b) }'; then
        best=$row
        best_t=$t
      fi
    done
    ir=""
    if command -v valgrind > /dev/null; then
      valgrind --tool=callgrind --toggle-collect=cc_cache_access \
        --callgrind-out-file="$work/cg.out" "$work/cut_merger" "$work/$k.cctrace" h100 \
        "$mode" > /dev/null 2>&1
      sent=$(echo "$best" | awk -F'|' '{print $5 + 0}')
      ir=$(awk -v n="$sent" '/^(summary|totals):/ { printf "%.0f", $2 / n; exit }' \
        "$work/cg.out")
    fi
    table+="${best}${ir:-n/a} |"$'\n'
  done
done

result="# The cache model on the merger thread: cut records, and repeated stores folded ($(date -u +%Y-%m-%d))

Machine: $(uname -m), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')).
Command: \`bash bench/cut_merger.sh\` at $(git -C "$root" rev-parse --short HEAD).
\"cut\": every cut record sent on at once (session 10's stream); \"fold\": a cut
global store held back and the identical stores after it folded into it (drop.c).

$table"
if [[ -n $out ]]; then
  printf '%s' "$result" > "$out"
fi
printf '%s' "$result"
