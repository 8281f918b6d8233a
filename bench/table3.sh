#!/usr/bin/env bash
# CGO 2015's Table 3 on this project's fixes (issue 10): each shape of the paper's table
# (bench/table3/cases.tsv: the launch, the transformation expected, the paper's K20
# speed-up) fixed by `coalcheck fix --transform auto`, then the original and the fix timed
# on the GPU, uninstrumented, in one run with the device-to-device copy bandwidth and
# cuBLAS doing the same math.
#
# Two halves, since coalcheck (with libclang) is built here and the GPU is elsewhere:
#   here:        bash bench/table3.sh prepare [DIR]       (DIR default build-table3)
#       per case: `coalcheck fix --transform auto --launch L -o DIR/fix-CASE --json
#       DIR/fix-CASE.json` (exit code, transformation, sectors before/after, verified,
#       bitwise or reassociated, seconds to decide: one row of DIR/prepare.tsv, "no fix:
#       REASON" when refused) and the launch plans of the original and of the fix
#       (COALCHECK_GPU_PLAN: DIR/plans/CASE.orig, DIR/plans/CASE.fixed). CASES="a b" does
#       only those (the others' rows stay); MANIFEST=FILE another case list (launch paths
#       relative to it); COALCHECK=binary (default build/coalcheck).
#   on the GPU:  bash bench/table3.sh device [DIR]         (carry DIR to the GPU machine)
#       builds coalcheck-gpu-launch (gcc), bench/table3/copy_bw.cu and cublas_gemv.cu
#       (nvcc, -lcublas), regenerates the SpMV matrix (gen), then writes $OUT/table3.tsv
#       (OUT default DIR/out) with: the device (info rows), the copy bandwidth (copy rows:
#       cudaMemcpyDeviceToDevice of 1 GiB and a copy kernel, median of 20), cuBLAS at the
#       vendor SPECs of the prepared cases (vendor rows), Nsight Compute's sectors and DRAM
#       bytes of each plan (ncu rows; NCU=0 skips them) and each plan's median time (time
#       rows: coalcheck-gpu-launch's `time` directive, 3 warm-ups, then the median of RUNS,
#       default 50, fewer where a plan would take more than PLAN_BUDGET_MS, default 3000,
#       never fewer than 5). Past DEADLINE_S seconds (default 300) it skips ncu and times
#       with 5 runs. Progress on stdout, each tool's output in $OUT/logs/.
#   here again:  python3 bench/table3-table.py DIR/prepare.tsv OUT/table3.tsv
#                  > bench/results/table3-<device>.md
#   either:      bash bench/table3.sh gen    the SpMV matrix (bench/table3/gen_csr.c) into
#                bench/table3/data/ (prepare and device run it themselves)
set -u -o pipefail
cd "$(dirname "$0")/.."
MODE=${1:-}
DIR=${2:-build-table3}
RUNS=${RUNS:-50}
T3=bench/table3
MANIFEST=${MANIFEST:-$T3/cases.tsv}
ROW="python3 $T3/prep_row.py"
START=$(date +%s)

say() { printf '[%4ds] %s\n' $(($(date +%s) - START)) "$*"; }

# The SpMV case's CSR matrix, the same bytes on every machine (the plans check their hash).
gen() {
  local b=${1:-$DIR/bin-host}
  mkdir -p "$b" "$T3/data"
  gcc -std=c11 -O2 -Wall -Wextra -Werror -o "$b/gen_csr" "$T3/gen_csr.c" &&
    "$b/gen_csr" 524288 32 7 "$T3/data" > "$b/gen_csr.out"
}

# prepare_case CASE: the fix, its row of DIR/prepare.tsv, the plans
prepare_case() {
  local cc=$1 topt=$2 name=$3 launch t0 t1 rc fixed
  launch=$($ROW launch "$MANIFEST" "$name") || return 1
  rm -rf "$DIR/fix-$name" "$DIR/fix-$name."* "$DIR/plans/$name."*
  say "$name: coalcheck fix $topt --launch $launch"
  t0=$(date +%s.%N)
  "$cc" fix $topt --launch "$launch" -o "$DIR/fix-$name" --json "$DIR/fix-$name.json" \
    > "$DIR/fix-$name.txt" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  sed -i "/^$name\t/d" "$DIR/prepare.tsv"
  $ROW row "$MANIFEST" "$name" "$DIR/fix-$name.json" "$DIR/fix-$name.txt" "$rc" \
    "$(awk "BEGIN { print $t1 - $t0 }")" >> "$DIR/prepare.tsv" || say "$name: no row (prep_row.py failed)"
  say "$name: $(tail -n1 "$DIR/prepare.tsv" | cut -f10-18 | tr '\t' ' ')"
  COALCHECK_GPU_PLAN="$DIR/plans/$name.orig" "$cc" --backend gpu --launch "$launch" -q ||
    say "$name: no plan for the original"
  fixed=$(ls "$DIR/fix-$name"/*.launch 2>/dev/null | head -n1)
  if [ "$rc" -eq 0 ] && [ -n "$fixed" ]; then
    COALCHECK_GPU_PLAN="$DIR/plans/$name.fixed" "$cc" --backend gpu --launch "$fixed" -q ||
      say "$name: no plan for the fix (see $DIR/fix-$name.txt)"
  fi
}

prepare() {
  local cc=${COALCHECK:-build/coalcheck} topt="--transform ${TRANSFORM:-auto}" name
  local -a cases
  [ -x "$cc" ] || { echo "prepare: no coalcheck binary at $cc (build it, or set COALCHECK)"; return 1; }
  # until the frame's --transform reaches the command line, fix does the permutation
  # (the help captured first: grep -q would close the pipe early, and under pipefail the
  # writer's SIGPIPE read as "no --transform")
  case "$("$cc" fix --help 2>&1)" in *--transform*) true ;; *) false ;; esac ||
    { topt=""; say "this coalcheck has no --transform: plain fix (the permutation)"; }
  read -r -a cases <<<"${CASES:-$($ROW cases "$MANIFEST")}"
  mkdir -p "$DIR/plans"
  if [ "$(head -n1 "$DIR/prepare.tsv" 2>/dev/null)" != "$($ROW header)" ]; then
    [ -s "$DIR/prepare.tsv" ] && say "$DIR/prepare.tsv has other columns: started afresh"
    $ROW header > "$DIR/prepare.tsv"
  fi
  case " ${cases[*]} " in *" spmv "*) gen || return 1 ;; esac
  { echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "host: $(nproc) CPUs, $(uname -srm)"
    echo "coalcheck: $cc ($(git log -1 --format='%h %s' 2>/dev/null | cut -c1-80))"
    echo "fix option: ${topt:-(none: --transform not supported)}"
    echo "root: $PWD"; } > "$DIR/prepare.txt"
  for name in "${cases[@]}"; do
    prepare_case "$cc" "$topt" "$name"
  done
  $ROW sort "$MANIFEST" "$DIR/prepare.tsv"
  column -t -s $'\t' "$DIR/prepare.tsv" 2>/dev/null || cat "$DIR/prepare.tsv"
}

# ---- device half --------------------------------------------------------------------------

build_device() {
  local b=$1 l=$2
  say "building coalcheck-gpu-launch, copy_bw, cublas_gemv, gen_csr"
  gcc -std=c11 -O2 -D_GNU_SOURCE -Isrc -o "$b/coalcheck-gpu-launch" src/gpu/launch.c \
    src/launch/arg.c src/launch/value.c src/launch/bind.c src/launch/layout.c src/util/err.c \
    src/util/fileio.c src/util/mem.c -ldl -lm > "$l/build-launch.log" 2>&1 &
  nvcc -O3 -arch=sm_90 -std=c++17 -o "$b/copy_bw" $T3/copy_bw.cu > "$l/build-copy.log" 2>&1 &
  nvcc -O3 -arch=sm_90 -std=c++17 -o "$b/cublas_gemv" $T3/cublas_gemv.cu -lcublas \
    > "$l/build-cublas.log" 2>&1 &
  wait
  [ -x "$b/coalcheck-gpu-launch" ] || { cat "$l/build-launch.log"; return 1; }
  [ -x "$b/copy_bw" ] || { say "copy_bw did not build"; cat "$l/build-copy.log"; }
  [ -x "$b/cublas_gemv" ] || { say "cublas_gemv did not build"; cat "$l/build-cublas.log"; }
  return 0
}

# a TSV row of the device table: kind name median min max runs bytes note
trow() { local IFS=$'\t'; echo "$*" >> "$TSV"; }

info_rows() {
  local q
  q=$(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,persistence_mode \
      --format=csv,noheader 2>/dev/null | head -n1)
  trow info device - - - - - "${q:-unknown}"
  trow info nvcc - - - - - "$(nvcc --version 2>/dev/null | tail -n1)"
  trow info date - - - - - "$(date -u '+%Y-%m-%d %H:%M UTC')"
  trow info runs - - - - - "RUNS=$RUNS PLAN_BUDGET_MS=$BUDGET"
  say "device: ${q:-unknown}"
}

# ncu_plan NAME PLANFILE: an ncu row (duration, DRAM bytes, sectors); prints the ms
ncu_plan() {
  local n=$1 p=$2 m
  m=l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
  m=$m,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum
  m=$m,dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum
  timeout 120 ncu --csv --print-units base --metrics "$m" "$B/coalcheck-gpu-launch" "$p" \
    > "$L/$n.ncu.csv" 2> "$L/$n.ncu.err" || return 1
  python3 - "$L/$n.ncu.csv" "$n" "$TSV" <<'EOF'
import csv, sys
path, name, tsv = sys.argv[1:]
v = {}
for r in csv.reader(open(path)):
    if len(r) > 10 and r[-3] != "Metric Name":
        # --print-units base writes ns (older ncu: nsecond); durations become ms
        scale = {"ns": 1e-6, "nsecond": 1e-6, "us": 1e-3, "usecond": 1e-3, "ms": 1.0,
                 "msecond": 1.0, "s": 1e3, "second": 1e3}.get(r[-2], 1.0)
        v[r[-3]] = float(r[-1].replace(",", "")) * scale
ms = v.get("gpu__time_duration.sum")
if ms is None:
    sys.exit(1)
g = lambda k: "%d" % v[k] if k in v else "-"
dram = v.get("dram__bytes_read.sum", 0) + v.get("dram__bytes_write.sum", 0)
l2 = ["lts__t_sectors_srcunit_tex_op_read.sum", "lts__t_sectors_srcunit_tex_op_write.sum"]
v["l2"] = sum(v[k] for k in l2) if all(k in v for k in l2) else None
note = ";".join(["ld_sectors=" + g("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"),
                 "st_sectors=" + g("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"),
                 "l2_sectors=" + (g("l2") if v["l2"] is not None else "-"),
                 "dram_read=" + g("dram__bytes_read.sum"), "dram_write=" + g("dram__bytes_write.sum")])
with open(tsv, "a") as f:
    f.write(f"ncu\t{name}\t{ms:.6f}\t-\t-\t1\t{dram:.0f}\t{note}\n")
print(f"{ms:.6f}")
EOF
}

# time_plan NAME: ncu (unless past the deadline), then the timed runs; a time row
time_plan() {
  local n=$1 d=$DIR/plans/$1 est="" runs
  local -a t
  # the plans name this machine's files (the SpMV matrix) by the prepare machine's root
  if [ -n "$ROOT" ]; then
    sed "s#file:$ROOT/#file:$PWD/#" "$d/plan" | grep -v '^time ' > "$d/plan.n"
  else
    grep -v '^time ' "$d/plan" > "$d/plan.n"
  fi
  if [ "$NCU" = 1 ] && [ $(($(date +%s) - START)) -lt "$DEADLINE" ]; then
    # the first launch under ncu estimates the time too; one failure (no counter access,
    # no ncu) turns ncu off for the rest
    est=$(ncu_plan "$n" "$d/plan.n") ||
      { say "$n: ncu failed ($L/$n.ncu.err): no more ncu"; NCU=0; est=""; }
  fi
  if [ -z "$est" ]; then # a pilot: 3 warm-ups and one timed run
    { cat "$d/plan.n"; echo "time 1 pilot.txt"; } > "$d/plan.p"
    timeout 300 "$B/coalcheck-gpu-launch" "$d/plan.p" > "$L/$n.pilot.log" 2>&1
    case $? in
      0) est=$(cut -d' ' -f1 "$d/pilot.txt") ;;
      10) say "no usable GPU: $(tail -n1 "$L/$n.pilot.log")"; return 10 ;;
    esac
  fi
  [ -n "$est" ] || { say "$n: launch failed ($L/$n.pilot.log)"; trow time "$n" - - - - - "launch failed"; return; }
  runs=$(python3 -c "import sys; print(max(5, min($RUNS, int($BUDGET / max(float(sys.argv[1]), 1e-6)))))" "$est")
  [ $(($(date +%s) - START)) -lt "$DEADLINE" ] || runs=5
  { cat "$d/plan.n"; echo "time $runs time.txt"; } > "$d/plan.t"
  if timeout 300 "$B/coalcheck-gpu-launch" "$d/plan.t" > "$L/$n.time.log" 2>&1; then
    read -r -a t < "$d/time.txt"
    trow time "$n" "${t[0]}" "${t[1]}" "${t[2]}" "${t[3]}" - -
    say "$n: median ${t[0]} ms of ${t[3]} (first estimate $est ms)"
  else
    trow time "$n" - - - - - "launch failed"
    say "$n: launch failed ($L/$n.time.log)"
  fi
}

device() {
  OUT=${OUT:-$PWD/$DIR/out}
  B=$DIR/bin L=$OUT/logs TSV=$OUT/table3.tsv
  BUDGET=${PLAN_BUDGET_MS:-3000} DEADLINE=${DEADLINE_S:-300} NCU=${NCU:-1}
  command -v ncu > /dev/null || NCU=0
  [ -s "$DIR/prepare.tsv" ] || { echo "device: no $DIR/prepare.tsv (run prepare first and carry $DIR)"; return 1; }
  ROOT=$(sed -n 's/^root: //p' "$DIR/prepare.txt" 2>/dev/null)
  mkdir -p "$B" "$L"
  printf 'kind\tname\tmedian_ms\tmin_ms\tmax_ms\truns\tbytes\tnote\n' > "$TSV"
  info_rows
  build_device "$B" "$L" || { say "build failed"; return 1; }
  if ls "$DIR"/plans/spmv.* > /dev/null 2>&1; then
    gen "$B" || say "gen_csr failed: the SpMV plans will be refused"
  fi
  if [ -x "$B/copy_bw" ]; then
    say "copy bandwidth (1 GiB, median of 20)"
    timeout 120 "$B/copy_bw" 1024 20 >> "$TSV" 2> "$L/copy_bw.err" || say "copy_bw failed ($L/copy_bw.err)"
    grep '^copy' "$TSV" | awk -F'\t' '{ printf "           %s: %.1f GB/s\n", $2, $7 / $3 / 1e6 }'
  fi
  local specs
  specs=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "vendor") v = i; next }
                     v && $v != "-" { print $v }' "$DIR/prepare.tsv" | sort -u | tr '\n' ' ')
  if [ -x "$B/cublas_gemv" ] && [ -n "${specs// }" ]; then
    say "cuBLAS: $specs"
    timeout 180 "$B/cublas_gemv" "$RUNS" $specs >> "$TSV" 2> "$L/cublas.err" || say "cublas_gemv: $(cat "$L/cublas.err")"
  fi
  local n
  for n in $(cut -f1 "$DIR/prepare.tsv" | tail -n +2); do
    if [ -f "$DIR/plans/$n.orig/plan" ]; then time_plan "$n.orig" || break; fi
    if [ -f "$DIR/plans/$n.fixed/plan" ]; then time_plan "$n.fixed" || break; fi
  done
  say "done: $TSV"
  cat "$TSV"
}

case "$MODE" in
  prepare) prepare ;;
  device) device ;;
  gen) gen && echo "nnz $(cat "$DIR/bin-host/gen_csr.out") in $T3/data" ;;
  *) echo "usage: bench/table3.sh prepare|device|gen [DIR]" >&2; exit 2 ;;
esac
