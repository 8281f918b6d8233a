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
# (thread-level and warp-level instructions, warp access records) come from the JSON
# report; a report without them leaves those columns "n/a".
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
# -arch=sm_90`), used while the report does not carry the emulator's own counters:
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
# counters: first number found under one of these keys anywhere in the report
keys = {"thread": ("thread_insns", "thread_instructions"),
        "warp": ("warp_insns", "warp_instructions"),
        "records": ("warp_accesses", "warp_records", "records")}
found = {}
def walk(o):
    if isinstance(o, dict):
        for k, v in o.items():
            for tag, names in keys.items():
                if k in names and isinstance(v, (int, float)) and tag not in found:
                    found[tag] = v
            walk(v)
    elif isinstance(o, list):
        for v in o:
            walk(v)
report = None
try:
    report = json.load(open(json_path))
    walk(report)
except Exception:
    pass
mark = {}
if "thread" not in found and rc == "0":
    found["thread"] = int(hand)   # hand count from the PTX (see the cases table)
    mark["thread"] = "*"
if "warp" not in found and rc == "0":
    # every lane of every warp takes the same path in these kernels
    found["warp"] = int(hand) // 32
    mark["warp"] = "*"
if "records" not in found and report:
    # a warp record per execution of a memory instruction: the instructions' executions
    found["records"] = sum(i.get("executions", 0) for k in report.get("kernels", [])
                           for i in k.get("instructions", []))
    mark["records"] = "+"
def rate(tag):
    if tag not in found or cpu <= 0:
        return "n/a"
    return "%.1f M/s%s" % (found[tag] / cpu / 1e6, mark.get(tag, ""))
def count(tag):
    return "%.1f M%s" % (found[tag] / 1e6, mark.get(tag, "")) if tag in found else "n/a"
lines = open(err_path).read().strip().splitlines()
status = "ok" if rc == "0" else "exit %s: %s" % (rc, lines[-1].replace("|", "/") if lines else "")
print("| %s | %s | %.2f | %.2f | %s | %s | %s | %s | %s | %.0f | %s |" % (
    name, what, secs, cpu, count("thread"), rate("thread"), count("warp"),
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
  echo "| case | what | wall s | CPU s | thread insns | thread insns/CPU s | warp insns | warp records | records/CPU s | peak RSS MiB | status |"
  echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
  printf '%s' "$rows"
  echo
  echo "\\* thread instructions counted by hand from the PTX (bench/emu_speed.sh states how):"
  echo "the JSON report does not carry the emulator's counters (struct cc_emu_stats) yet;"
  echo "warp instructions = thread instructions / 32 (no divergence, full warps). The same"
  echo "counts for the 1024-sized examples are checked exactly against --max-insns in"
  echo "tests/examples/test_examples.c (test_instruction_counts)."
  echo "\\+ warp records = sum of the instructions' \`executions\` in the JSON report."
  echo
  echo "Commands (\$TMP: the PTX and JSON of the run; /usr/bin/time -v in front of each):"
  echo
  printf '%s' "$cmds"
} | tee "$out"
