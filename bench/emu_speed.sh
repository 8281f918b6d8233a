#!/usr/bin/env bash
# Emulator speed benchmark: thread-instructions per second, warp records per second and
# peak memory of `coalcheck` on kernels big enough to run for a second or more.
#
# usage: bench/emu_speed.sh [-o RESULT.md] [CASE...]
#   COALCHECK  the binary (default: the newest build*/coalcheck of the tree)
#   CASE       names of the cases below (default: all)
# Writes bench/results/emu-speed-YYYY-MM-DD.md (or -o) with the date, the machine, the
# commands and the numbers, and prints it.
#
# Method: each kernel is compiled to PTX first (nvcc -ptx -lineinfo -arch=sm_90, the flags
# coalcheck uses), so that nvcc's time is not counted; then coalcheck runs the PTX under
# /usr/bin/time -v (Debian package `time`). The time is the whole run (parse, emulation,
# analysis, report): the rates are lower bounds on the emulator's own. Rates divide by
# the CPU time (user + system) of the single-threaded run, which other jobs on a shared
# machine do not inflate the way they inflate the wall time; both times are shown. The counters
# (thread-level and warp-level instructions, warp access records, the emulation's own wall
# time) come from the JSON report's per-kernel "emulator" object; a report without it
# leaves those columns "n/a".
#
# Target: >= 300 M thread-instructions per second on one core for simple kernels (the
# copies and the naive transpose).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
out=""
if [[ ${1:-} == -o ]]; then
  out=$2
  shift 2
fi

# name | example source | launch file under bench/ | what it stresses | thread-level
# instructions of the run, counted by hand from nvcc 13's PTX (`nvcc -ptx -lineinfo
# -arch=sm_90`), checked against the emulator's own counters:
#   transpose_naive: 22 straight-line instructions per thread (ld.param x3 ... st, ret),
#     4096*4096 threads = 369098752
#   transpose_tiled: 56 straight-line instructions per thread (the j loops unrolled,
#     bar.sync included), 128*128*256 threads = 234881024
#   strided_copy: 20 instructions per thread (10 up to the bounds branch, 9 for the
#     copy, ret), 64 Mi threads = 1342177280
#   row_sums_thread: 29 before the unrolled loop, 13 per iteration x 16384/4, 2 for the
#     skipped remainder, 5 after: 53284 per thread, 4096 threads = 218251264
cases=(
  "transpose_naive_4096|examples/transpose/transpose.cu|transpose_naive_4096.launch|straight-line, 16.8 M threads|369098752"
  "transpose_tiled_4096|examples/transpose/transpose.cu|transpose_tiled_4096.launch|shared memory + bar.sync|234881024"
  "strided_copy_64m|examples/strided_copy/strided_copy.cu|strided_copy_64m.launch|tiny kernel, 67 M threads, 512 MiB|1342177280"
  "row_sums_thread_4096|examples/row_sums/row_sums.cu|row_sums_thread_4096.launch|loop, 128 warps, 256 MiB|218251264"
)

bin=${COALCHECK:-}
if [[ -z $bin && -x $root/build/coalcheck ]]; then
  bin=$root/build/coalcheck
elif [[ -z $bin ]]; then
  bin=$(ls -t "$root"/build*/coalcheck 2>/dev/null | head -n1 || true)
fi
if [[ -z $bin || ! -x $bin ]]; then
  echo "emu_speed.sh: error: no coalcheck binary (set COALCHECK or build one in build*/)" >&2
  exit 2
fi
if [[ ! -x /usr/bin/time ]]; then
  echo "emu_speed.sh: error: /usr/bin/time missing (apt-get install time)" >&2
  exit 2
fi
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)

tmp=$(mktemp -d /tmp/cc-bench-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

date_utc=$(date -u +%Y-%m-%d)
[[ -n $out ]] || out="$here/results/emu-speed-$date_utc.md"
cpu=$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')

rows=""
cmds=""
for c in "${cases[@]}"; do
  IFS='|' read -r name src launch what hand <<<"$c"
  if [[ $# -gt 0 && ! " $* " == *" $name "* ]]; then continue; fi
  ptx="$tmp/$name.ptx"
  "$nvcc" -ptx -lineinfo -arch=sm_90 "$root/$src" -o "$ptx"
  cmd=("$bin" "$ptx" --launch "$here/$launch" -q --json "$tmp/$name.json")
  echo "running $name: ${cmd[*]}" >&2
  rc=0
  /usr/bin/time -v -o "$tmp/$name.time" "${cmd[@]}" >"$tmp/$name.stdout" 2>"$tmp/$name.stderr" || rc=$?
  row=$(python3 - "$tmp/$name.time" "$tmp/$name.json" "$name" "$what" "$rc" "$tmp/$name.stderr" "$hand" <<'EOF'
import json, re, sys
time_path, json_path, name, what, rc, err_path, hand = sys.argv[1:]
t = open(time_path).read()
def field(label):
    m = re.search(r"^\s*" + re.escape(label) + r":\s*(.+)$", t, re.M)
    return m.group(1).strip() if m else None
wall = field("Elapsed (wall clock) time (h:mm:ss or m:ss)")
secs = 0.0
if wall:
    for part in wall.split(":"):
        secs = secs * 60 + float(part)
rss_mib = int(field("Maximum resident set size (kbytes)") or 0) / 1024
user = float(field("User time (seconds)") or 0)
cpu = user + float(field("System time (seconds)") or 0)
# counters: the report's per-kernel "emulator" object (docs/json-schema.md), summed over
# the kernels: thread_insns, warp_insns, warp_accesses, seconds (the emulation alone)
found = {}
report = None
try:
    report = json.load(open(json_path))
    for k in report.get("kernels", []):
        e = k.get("emulator")
        if not e:
            continue
        for tag, key in (("thread", "thread_insns"), ("warp", "warp_insns"),
                         ("records", "warp_accesses"), ("emu_s", "seconds")):
            found[tag] = found.get(tag, 0) + e[key]
except Exception:
    pass
# the hand count from the PTX (cases table: instructions along each thread's path, full
# warps) checks the emulator's warp count x 32; thread_insns is lower by the lanes whose
# guard was false (a branch not taken: @%p bra with %p false)
check = ""
if "warp" in found:
    check = "" if int(found["warp"]) * 32 == int(hand) else " (hand count %s!)" % hand
def rate(tag):
    if tag not in found or cpu <= 0:
        return "n/a"
    return "%.1f M/s" % (found[tag] / cpu / 1e6)
def count(tag):
    return "%.1f M" % (found[tag] / 1e6) if tag in found else "n/a"
emu_s = "%.2f" % found["emu_s"] if "emu_s" in found else "n/a"
lines = open(err_path).read().strip().splitlines()
status = "ok" if rc == "0" else "exit %s: %s" % (rc, lines[-1].replace("|", "/") if lines else "")
print("| %s | %s | %.2f | %.2f | %s | %s | %s | %s%s | %s | %s | %.0f | %s |" % (
    name, what, secs, cpu, emu_s, count("thread"), rate("thread"), count("warp"), check,
    count("records"), rate("records"), rss_mib, status))
EOF
)
  rows+="$row"$'\n'
  cmds+="    ${cmd[*]/#$tmp\//\$TMP/}"$'\n'
done

{
  echo "# Emulator speed, $date_utc"
  echo
  echo "- machine: $(nproc) CPU(s), $cpu, $(free -g | awk '/Mem:/{print $2}') GiB RAM; $(uname -sr)"
  cache=$(dirname "$bin")/CMakeCache.txt
  build=$(grep -sE '^(CMAKE_BUILD_TYPE|COALCHECK_SANITIZE):' "$cache" | sed 's/:[A-Z]*=/=/' | tr '\n' ' ')
  echo "- binary: $bin ($("$bin" --version 2>/dev/null | head -n1 || echo 'no --version'); ${build:-build settings unknown})"
  echo "- nvcc: $("$nvcc" --version | tail -n1)"
  echo "- script: bench/emu_speed.sh (PTX compiled first; time = whole coalcheck run, one thread; rates per CPU second)"
  echo "- target: >= 300 M thread-instructions/s on one core for simple kernels"
  echo
  echo "| case | what | wall s | CPU s | emulation s | thread insns | thread insns/CPU s | warp insns | warp records | records/CPU s | peak RSS MiB | status |"
  echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
  printf '%s' "$rows"
  echo
  echo 'Counters from the JSON report'"'"'s `emulator` object (struct cc_emu_stats; `emulation s`:'
  echo "its wall time, parse and report excluded); rates per CPU second of the whole run."
  echo "32 x warp insns is checked against the hand count of the PTX (cases table in the"
  echo "script); a difference is flagged \"(hand count N!)\". thread insns count the lanes"
  echo "whose guard is true (a branch not taken by a lane does not count)."
  echo
  echo "Commands (\$TMP: the PTX and JSON of the run; /usr/bin/time -v in front of each):"
  echo
  printf '%s' "$cmds"
} | tee "$out"
