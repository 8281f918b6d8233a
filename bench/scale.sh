#!/usr/bin/env bash
# Emulator scaling benchmark (issue 15): throughput, wall time and peak memory of one
# launch against --jobs 1, 2, 4, 8, 16, and against `mpirun -np 1/2/4`, with a check that
# every run's report and output buffer are the --jobs 1 run's bit for bit.
#
# usage: bash bench/scale.sh BUILD_DIR [OUT_DIR]
#   BUILD_DIR  a build of coalcheck (BUILD_DIR/coalcheck, libraries in BUILD_DIR/lib if
#              any, put on LD_LIBRARY_PATH); runs from a carried build dir
#              with no network and no nvcc: the kernels are the PTX in bench/scale/
#              (nvcc -ptx -lineinfo -arch=sm_90, the flags coalcheck uses, of
#              examples/transpose/transpose.cu and bench/table3/kernels/covariance.cu;
#              the .file paths made relative to the repository root)
#   OUT_DIR    where the table (scale-DATE-HOST.md) and the raw runs go (default
#              bench/results)
#   SCALE_JOBS (default "1 2 4 8 16"), SCALE_NP (default "1 2 4"; "" for
#              none), SCALE_CASES (default
#              "naive tiled covariance") narrow the runs (a smoke test: SCALE_JOBS="1 2");
#   SCALE_NP_JOBS (default "fill") the --jobs of each rank in the MPI rows, a list: "fill"
#              (cores / ranks, so that ranks x jobs = the cores) and numbers (e.g. "fill 1":
#              also the ranks alone, one thread each); a -np N with the same --jobs twice
#              runs once; the MPI runs use the mpirun on PATH (bench/scale-carry.sh
#              carries one)
#   SCALE_EXTRA  options added to every run (e.g. "--cache off": the analyses alone, no
#              order-dependent consumer behind the merger); named in the table and its file
#   SCALE_TRACES (default "naive tiled covariance"; "" for none) the cases whose trace
#              (`coalcheck record`, once) is replayed by `coalcheck report TRACE --jobs N`
#              for each N of SCALE_JOBS: the analyses and the cache model alone (the model
#              replays on N threads, src/cache/README.md "Parallel replay"), no emulator
#
# Cases: the naive and the tiled transposes of 4096 x 4096 floats (65,536 and 16,384
# CTAs of 32 x 8), and PolyBench's covariance kernel (bench/table3) at m = 2048, n = 48
# in 64 CTAs of 32 threads (about 10 s on one core; its CTAs have unequal work, the j2
# loop being triangular).
# Figures: thread-instructions from the JSON report's "emulator" counters, divided by the
# emulation's own wall time ("emulator.seconds": the run of the CTAs with the analyses
# behind the sink, without parsing and report writing) and by the whole command's wall
# time; peak RSS from /usr/bin/time -v (else "n/a"); "same" when the JSON report (less
# its "seconds") and the --dump of the output buffer equal the --jobs 1 run's.
# MPI rows need mpirun and a coalcheck built with MPI (ldd shows libmpi); otherwise the
# table says why they were skipped. Each rank runs with --jobs (cores / ranks) unless
# SCALE_NP_JOBS says otherwise; the MPI rows' emu s is rank 0's: its own CTAs, then the
# other ranks' records received and run through its sink (src/cli/mpi.c).
set -uo pipefail
set -f # the launch arguments hold brackets: no globbing

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
build=${1:?usage: bash bench/scale.sh BUILD_DIR [OUT_DIR]}
outdir=${2:-$root/bench/results}
cc=$(cd "$build" && pwd)/coalcheck
jobs_list=${SCALE_JOBS:-1 2 4 8 16}
np_list=${SCALE_NP-1 2 4}
np_jobs=${SCALE_NP_JOBS:-fill}
cases=${SCALE_CASES:-naive tiled covariance}
traces=${SCALE_TRACES-naive tiled covariance}
extra=${SCALE_EXTRA:-}
suffix=$(echo "$extra" | tr -c 'A-Za-z0-9\n' '-' | sed 's/^-*//; s/-*$//')
stamp=$(date -u +%Y-%m-%d)
host=$(hostname -s 2>/dev/null || echo host)
raw=$outdir/scale-raw-$stamp-$host${suffix:+-$suffix}
md=$outdir/scale-$stamp-$host${suffix:+-$suffix}.md
mkdir -p "$raw" || exit 1
cd "$root" || exit 1

# a carried build may bring the shared libraries the device lacks in BUILD_DIR/lib
# (e.g. cp $(ldd BUILD_DIR/coalcheck | awk '/isl|cjson|zstd|gmp/ {print $3}') BUILD_DIR/lib)
if [ -d "$build/lib" ]; then
  export LD_LIBRARY_PATH="$(cd "$build/lib" && pwd)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
if [ ! -x "$cc" ]; then
  echo "bench/scale.sh: no coalcheck in $build" >&2
  exit 2
fi
# ldd's output taken whole: grep -q stopping early would fail the pipe under pipefail
libs=$(ldd "$cc" 2>/dev/null)
if grep -q "not found" <<<"$libs"; then
  echo "bench/scale.sh: $cc lacks libraries here:" >&2
  ldd "$cc" | grep "not found" >&2
  exit 2
fi
cores=$(nproc 2>/dev/null || echo 1)
timer=""
[ -x /usr/bin/time ] && timer="/usr/bin/time -v"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# the launch of each case and its output buffer: case_args, case_buf
# shellcheck source=bench/scale/cases.bash
. "$here/scale/cases.bash"

# one run: run TAG CASE CMD...: CMD (coalcheck and its --jobs, or mpirun ... coalcheck)
# runs the case; leaves $raw/TAG.{json,bin,err} and prints the table's cells: thread-insns,
# emu s, wall s, M thread-insns/s (emu), (wall), peak RSS MiB
run() {
  local tag=$1 c=$2 buf t0 t1 wall rc
  shift 2
  buf=$(case_buf "$c")
  t0=$(date +%s.%N)
  # shellcheck disable=SC2046 # the case's words are split on purpose
  # shellcheck disable=SC2086 # $extra: options, split on purpose
  $timer "$@" $(case_args "$c") $extra -q --json "$raw/$tag.json" --dump "$buf=$raw/$tag.bin" \
    >/dev/null 2>"$raw/$tag.err"
  rc=$?
  t1=$(date +%s.%N)
  wall=$(python3 -c "print($t1 - $t0)")
  if [ $rc != 0 ]; then
    echo "| failed (exit $rc: $(grep -m1 'error' "$raw/$tag.err" | cut -c1-80 | tr '|' '/')) | | | | | |"
    return
  fi
  python3 - "$raw/$tag.json" "$raw/$tag.err" "$wall" <<'EOF'
import json, re, sys
e = json.load(open(sys.argv[1]))["kernels"][0]["emulator"]
wall = float(sys.argv[3])
rss = "n/a"
m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", open(sys.argv[2]).read())
if m:
    rss = "%.0f" % (int(m.group(1)) / 1024)
print("| %d | %.2f | %.2f | %.0f | %.0f | %s |" % (e["thread_insns"], e["seconds"], wall,
      e["thread_insns"] / e["seconds"] / 1e6, e["thread_insns"] / wall / 1e6, rss))
EOF
}

# speedup BASE TAG: TAG's emulation rate over BASE's, "1.00x" style
speedup() {
  python3 - "$raw/$1.json" "$raw/$2.json" <<'EOF' 2>/dev/null || echo "n/a"
import json, sys
r = [json.load(open(f))["kernels"][0]["emulator"] for f in sys.argv[1:3]]
print("%.2fx" % ((r[1]["thread_insns"] / r[1]["seconds"]) / (r[0]["thread_insns"] / r[0]["seconds"])))
EOF
}

# same TAG BASE: "same" when TAG's report (less "seconds") and dump equal BASE's
same() {
  local a=$raw/$1 b=$raw/$2
  [ -s "$a.json" ] && [ -s "$b.json" ] || { echo "n/a"; return; }
  if cmp -s <(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
for k in d["kernels"]: k.get("emulator", {}).pop("seconds", None)
print(json.dumps(d, sort_keys=True))' "$a.json") <(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
for k in d["kernels"]: k.get("emulator", {}).pop("seconds", None)
print(json.dumps(d, sort_keys=True))' "$b.json") && cmp -s "$a.bin" "$b.bin"; then
    echo same
  else
    echo DIFFERS
  fi
}

# the SCALE_ settings of this run, as a shell would take them back
settings=$(for v in SCALE_JOBS SCALE_NP SCALE_NP_JOBS SCALE_CASES SCALE_TRACES SCALE_EXTRA; do
  [ -n "${!v+set}" ] && printf "%s='%s' " "$v" "${!v}"
done)
settings=${settings% }
cpu=$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //')
ram=$(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo 2>/dev/null)
version=$("$cc" --version 2>/dev/null)
{
  echo "# Emulator scaling: --jobs and mpirun ($stamp, $host)"
  echo
  echo "Command: \`$settings${settings:+ }bash bench/scale.sh $build $outdir\` (bench/scale.sh says how each figure"
  echo "is taken). Machine: $cores cores (${cpu:-?}), ${ram:-?} RAM;"
  # the binary's own revision (`--version`): the folder it runs in may be a copy whose
  # git HEAD is not the one the binary was built from (the device tool copies the tree)
  echo "$(sed -n 1p <<<"$version"), $(sed -n 's/^git revision: //p' <<<"$version" | head -n1);"
  echo "$(grep '^MPI:' <<<"$version" || echo 'MPI: ?')."
  echo "M/s = million thread-instructions per second of the emulation (emu) and of the whole"
  echo "command (wall); speed-up = emu M/s over the --jobs 1 row's; same = the report and the"
  echo "dump equal the --jobs 1 run's bit for bit."
  echo
  echo "| case | run | thread-insns | emu s | wall s | M/s (emu) | M/s (wall) | peak RSS MiB | speed-up | same |"
  echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
} >"$md"

mpi_note=""
if ! command -v mpirun >/dev/null; then
  mpi_note="MPI rows skipped: no mpirun on this machine (Debian: openmpi-bin)"
elif ! grep -q libmpi <<<"$libs"; then
  mpi_note="MPI rows skipped: $cc was built without MPI (COALCHECK_MPI, libopenmpi-dev)"
fi

for c in $cases; do
  base=""
  for j in $jobs_list; do
    tag=$c-jobs$j
    echo "bench/scale.sh: $c --jobs $j" >&2
    cells=$(run "$tag" "$c" "$cc" --jobs "$j" | tail -n1)
    [ -z "$base" ] && base=$tag
    echo "| $c | --jobs $j $cells $(speedup "$base" "$tag") | $(same "$tag" "$base") |" >>"$md"
    [ "$tag" = "$base" ] || rm -f "$raw/$tag.bin" # 64 MiB each: keep the reference only
  done
  for np in $np_list; do
    [ -z "$mpi_note" ] || break
    done_jobs=" "
    for spec in $np_jobs; do
      per=$spec
      [ "$spec" = fill ] && per=$((cores / np))
      [ "$per" -ge 1 ] || per=1
      case $done_jobs in *" $per "*) continue ;; esac
      done_jobs="$done_jobs$per "
      tag=$c-np$np-jobs$per
      echo "bench/scale.sh: $c mpirun -np $np --jobs $per" >&2
      # --bind-to none: Open MPI binds each of at most 2 ranks to one core by default
      cells=$(run "$tag" "$c" mpirun --oversubscribe --bind-to none -np "$np" "$cc" --jobs "$per" |
        tail -n1)
      echo "| $c | mpirun -np $np, --jobs $per $cells $(speedup "$base" "$tag") | $(same "$tag" "$base") |" >>"$md"
      rm -f "$raw/$tag.bin"
    done
  done
  rm -f "$raw/$base.bin"
done
if [ -n "$mpi_note" ]; then printf '\n%s.\n' "$mpi_note" >>"$md"; fi

# replay of a recorded trace: report TRACE --jobs N (the cache model on N threads unless
# SCALE_EXTRA turns it off); wall and CPU seconds of the whole command, records/s by wall
if [ -n "$traces" ]; then
  {
    echo
    echo "\`coalcheck report TRACE${extra:+ $extra} --jobs N\` (the trace recorded once with \`coalcheck record\`;"
    echo "records = warp records replayed; M rec/s by wall time; CPU s = user + sys of all threads;"
    echo "same = the JSON report, less \"seconds\", equals the first --jobs row's):"
    echo
    echo "| trace | run | records | wall s | CPU s | M rec/s (wall) | speed-up | same |"
    echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |"
  } >>"$md"
fi
for c in $traces; do
  t=$raw/$c.cctrace
  echo "bench/scale.sh: record $c" >&2
  # shellcheck disable=SC2046 # the case's words are split on purpose
  if ! "$cc" record $(case_args "$c") -q -o "$t" >/dev/null 2>"$raw/$c-record.err"; then
    echo "| $c | record failed: $(head -c 80 "$raw/$c-record.err" | tr '|\n' '/ ') | | | | | | |" >>"$md"
    continue
  fi
  base_wall=""
  for j in $jobs_list; do
    tag=$c-report-jobs$j
    echo "bench/scale.sh: report $c --jobs $j" >&2
    t0=$(date +%s.%N)
    if [ -x /usr/bin/time ]; then
      # shellcheck disable=SC2086 # $extra: options, split on purpose
      /usr/bin/time -f "%U %S" -o "$raw/$tag.time" "$cc" report "$t" $extra --jobs "$j" -q \
        --json "$raw/$tag.json" >/dev/null 2>"$raw/$tag.err"
    else
      # shellcheck disable=SC2086
      "$cc" report "$t" $extra --jobs "$j" -q --json "$raw/$tag.json" >/dev/null 2>"$raw/$tag.err"
    fi
    rc=$?
    t1=$(date +%s.%N)
    if [ $rc != 0 ]; then
      echo "| $c | --jobs $j failed (exit $rc) | | | | | | |" >>"$md"
      continue
    fi
    [ -s "$raw/$tag.time" ] || echo "n/a n/a" >"$raw/$tag.time"
    wall=$(python3 -c "print('%.2f' % ($t1 - $t0))")
    [ -z "$base_wall" ] && base_wall=$wall
    python3 - "$raw/$tag.json" "$raw/$tag.time" "$wall" "$base_wall" "$c" "$j" \
      "$raw/$c-report-jobs${jobs_list%% *}.json" >>"$md" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
n = sum(i["executions"] for k in d["kernels"] for i in k["instructions"])
u = open(sys.argv[2]).read().split()
cpu = "n/a" if u[0] == "n/a" else "%.2f" % (float(u[0]) + float(u[1]))
wall, base = float(sys.argv[3]), float(sys.argv[4])
def strip(o):
    if isinstance(o, dict):
        return {k: strip(v) for k, v in o.items() if k != "seconds"}
    if isinstance(o, list):
        return [strip(v) for v in o]
    return o
def norm(f):
    return json.dumps(strip(json.load(open(f))), sort_keys=True)
same = "same" if norm(sys.argv[1]) == norm(sys.argv[7]) else "DIFFERS"
print("| %s | --jobs %s | %d | %.2f | %s | %.2f | %.2fx | %s |" % (sys.argv[5], sys.argv[6], n,
      wall, cpu, n / wall / 1e6, base / wall, same))
EOF
  done
  rm -f "$t"
done
cat "$md"
