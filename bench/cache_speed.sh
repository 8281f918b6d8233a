#!/usr/bin/env bash
# Cache model speed benchmark (src/cache): warp records per second through the model alone
# for six access patterns (bench/cache_speed.c), the cost of many small kernels in turn
# on one model, the host instructions it executes per
# record (valgrind --tool=callgrind, counting inside cc_cache_access only: the figure that
# does not depend on the machine's load), its memory, and what it adds to
# `coalcheck report` replaying a trace (the naive 4096x4096 transpose, 1 M records, and
# the row-per-thread row sums, 0.5 M records of 32 lines each), --cache off vs on.
#
# usage: bench/cache_speed.sh [-o RESULT.md] [RECORDS [SAMPLE...]]
#   RECORDS    records per pattern of the model-only run (default 4194304)
#   SAMPLE     set sampling of the model (--cache h100,sample=N,sample-after=0: 1 set in N
#              replayed from the first record; 1: every set, the exact replay); default
#              "1 16"; the model-only table is the best of 3 runs per pattern and sample
#   COALCHECK  the binary (default: build/coalcheck); the trace part needs nvcc and
#              /usr/bin/time, and is left out without them
#   CG_RECORDS records per pattern under callgrind (default 131072; gather an eighth);
#              the column is left out without valgrind
#   BASE       a commit whose src/cache to count too, as a "before" column (optional)
# Writes bench/results/cache-speed-YYYY-MM-DD.md (or -o) with the date, the machine, the
# commands and the numbers, and prints it. Rates divide by CPU time (the machine may be
# shared). Target (issue 12): >= 50 M warp records/s per core.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
out=""
if [[ ${1:-} == -o ]]; then
  out=$2
  shift 2
fi
records=${1:-4194304}
shift || true
samples=${*:-1 16}
[[ -n $out ]] || out="$root/bench/results/cache-speed-$(date -u +%Y-%m-%d).md"
cc_bin=${COALCHECK:-$root/build/coalcheck}

work=$(mktemp -d "${TMPDIR:-/tmp}/cache_speed.XXXXXX")
trap 'rm -rf "$work"' EXIT
cc=${CC:-cc}
$cc -std=c11 -O2 -D_GNU_SOURCE -Wall -Wextra -I"$root/src" -o "$work/cache_speed" \
  "$root/bench/cache_speed.c" "$root"/src/cache/*.c "$root/src/util/err.c" \
  "$root/src/util/mem.c" "$root/src/util/fileio.c" "$root/src/access/access.c" \
  $(pkg-config --cflags --libs libcjson) -lm -pthread

# the best of 3 runs (CPU seconds) per pattern, for each sample
spec_of() { echo "h100,sample=$1,sample-after=0"; }
table="| pattern | sample | records | CPU seconds (best of 3) | M records/s | L2 sectors | DRAM MB read | DRAM MB written |"$'\n'
table+="| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"$'\n'
for s in $samples; do
  for i in 1 2 3; do
    "$work/cache_speed" "$records" "$(spec_of "$s")" | grep -E '^\| [a-z]+ \| [0-9]' >> "$work/runs.$s"
  done
  table+=$(awk -F'|' -v s="$s" '{ p = $2; gsub(/ /, "", p); t = $4 + 0
    if (!(p in best) || t < best[p]) { best[p] = t; row[p] = $0 }
    if (!(p in order)) order[p] = ++n; name[n] = p }
    END { for (i = 1; i <= n; i++) { split(row[name[i]], f, "|")
      printf "|%s| %s |%s|%s|%s|%s|%s|%s|\n", f[2], s, f[3], f[4], f[5], f[6], f[7], f[8] } }' \
    "$work/runs.$s")$'\n'
done
memory=$("$work/cache_speed" 65536 "$(spec_of 1)" copy | grep '^memory')

# an application's many launches on one model: 262144 copy records as K kernels in turn,
# each begun and ended (cc_cache_begin_kernel empties what the last one filled), best of 3
kernels="| kernels | records each | CPU seconds (best of 3) | us a kernel |"$'\n'
kernels+="| ---: | ---: | ---: | ---: |"$'\n'
for k in 1 256 4096; do
  best=$(for i in 1 2 3; do "$work/cache_speed" 262144 h100,sample=1 copy 1 "$k" |
           awk -F'|' '/^\| copy/ { print $4 + 0 }'; done | sort -g | head -n1)
  kernels+="| $k | $((262144 / k)) | $best | $(awk -v t="$best" -v k="$k" 'BEGIN { printf "%.1f", t / k * 1e6 }') |"$'\n'
done

# host instructions per record inside cc_cache_access, per pattern (callgrind)
build_at() { # $1: source root, $2: binary
  $cc -std=c11 -O2 -D_GNU_SOURCE -Wall -Wextra -I"$1/src" -o "$2" "$1/bench/cache_speed.c" \
    "$1"/src/cache/*.c "$1/src/util/err.c" "$1/src/util/mem.c" "$1/src/util/fileio.c" \
    "$1/src/access/access.c" $(pkg-config --cflags --libs libcjson) -lm -pthread
}
per_record() { # $1: binary, $2: pattern, $3: device spec -> instructions per record
  local n=${CG_RECORDS:-131072}
  [[ $2 == gather ]] && n=$((n / 8))
  valgrind --tool=callgrind --toggle-collect=cc_cache_access \
    --callgrind-out-file="$work/cg.out" "$1" "$n" "$3" "$2" > /dev/null 2>&1
  awk -v n="$n" '/^(summary|totals):/ { printf "%.0f", $2 / n; exit }' "$work/cg.out"
}
cg=""
if command -v valgrind > /dev/null 2>&1; then
  if [[ -n ${BASE:-} ]]; then
    mkdir -p "$work/base"
    git -C "$root" archive "$BASE" src/cache src/util src/access bench/cache_speed.c \
      bench/patterns.h | tar x -C "$work/base"
    build_at "$work/base" "$work/cache_speed_base"
  fi
  cg="| pattern |"
  for s in $samples; do cg+=" sample=$s: instructions / record |"; done
  cg+="${BASE:+ before ($BASE) |}"$'\n'"| --- |"
  for s in $samples; do cg+=" ---: |"; done
  cg+="${BASE:+ ---: |}"$'\n'
  for p in copy transpose divergent loop gather padded gemv gesummv; do # (a BASE before 2026-11-29 has no padded, before session 19 no gemv or gesummv: 0)
    cg+="| $p |"
    for s in $samples; do cg+=" $(per_record "$work/cache_speed" $p "$(spec_of "$s")") |"; done
    [[ -n ${BASE:-} ]] && cg+=" $(per_record "$work/cache_speed_base" $p h100) |"
    cg+=$'\n'
  done
fi

# `coalcheck report` of a recorded trace, cache model off and on: CPU seconds (user+sys)
replay=""
if command -v nvcc >/dev/null 2>&1 && [[ -x /usr/bin/time && -x $cc_bin ]]; then
  replay="| trace | records | --cache off: CPU s | --cache h100: CPU s | added per record |"$'\n'
  replay+="| --- | ---: | ---: | ---: | ---: |"$'\n'
  for pair in transpose_naive_4096:transpose/transpose.cu row_sums_thread_4096:row_sums/row_sums.cu; do
    launch=${pair%%:*}
    t="$work/$launch.cctrace"
    "$cc_bin" record "$root/examples/${pair#*:}" --launch "$root/bench/$launch.launch" -q -o "$t" >/dev/null
    n=$("$cc_bin" report "$t" --cache off --json - -q |
        python3 -c "import json,sys; print(sum(i['executions'] for k in json.load(sys.stdin)['kernels'] for i in k['instructions']))")
    for mode in off h100; do
      /usr/bin/time -f "%U %S" -o "$work/time.$mode" "$cc_bin" report "$t" --cache "$mode" \
        -q > /dev/null
    done
    off=$(awk '{ print $1 + $2 }' "$work/time.off")
    on=$(awk '{ print $1 + $2 }' "$work/time.h100")
    per=$(python3 -c "print('%.0f ns' % (max(0.0, $on - $off) / $n * 1e9))")
    replay+="| $launch | $n | $off | $on | $per |"$'\n'
  done
fi

{
  echo "# Cache model speed ($(date -u +%Y-%m-%d))"
  echo
  echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores (shared with other jobs), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $($cc --version | head -n1)"
  echo "- command: \`bench/cache_speed.sh $records $samples\` (one thread, -O2)"
  echo "- model: H100 (132 SMs, L1 248 KiB per SM for 256-thread CTAs, 4 ways; L2 50 MiB, 16 ways), \`--cache h100,sample=N,sample-after=0\` for each sample N; rates per CPU second of the replay alone (record generation excluded); M = 10^6"
  echo
  echo "$table"
  echo "$memory"
  echo
  echo "Kernels in turn on one model (\`cache_speed 262144 h100,sample=1 copy 1 K\`: the time counts each kernel's begin and end):"
  echo
  echo "$kernels"
  if [[ -n $cg ]]; then
    echo
    echo "Host instructions per record inside cc_cache_access (valgrind --tool=callgrind --toggle-collect=cc_cache_access, ${CG_RECORDS:-131072} records per pattern, gather an eighth; independent of the machine's load):"
    echo
    echo "$cg"
  fi
  if [[ -n $replay ]]; then
    echo
    echo "\`coalcheck report TRACE --cache off|h100 -q\` (the analysis, and the cache model when on):"
    echo
    echo "$replay"
  fi
} > "$out"
cat "$out"
