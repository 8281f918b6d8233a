#!/usr/bin/env bash
# `coalcheck fix` judged on the GPU: for each case, the original launch and the fixed one
# (DIR/K.launch written by `coalcheck fix`) timed uninstrumented (median of RUNS launches
# after 3 warm-ups, CUDA events: coalcheck-gpu-launch's `time` directive) and measured by
# Nsight Compute (global load/store requests and sectors, DRAM bytes, duration).
#
# Two halves, since coalcheck (with libclang) is built here and the GPU is elsewhere:
#   here:             bash bench/fix-gpu.sh prepare [DIR]      (DIR default build-fix-gpu)
#       runs `coalcheck fix` (both strategies; the time each took to decide) on every case
#       and writes a launch plan for the original and for the fix (COALCHECK_GPU_PLAN)
#   on the GPU:       bash bench/fix-gpu.sh device [DIR]
#       builds coalcheck-gpu-launch, times and profiles every plan; $OUT/fix-gpu.tsv
#   here:             python3 bench/fix-gpu-table.py DIR/fix.tsv OUT/fix-gpu.tsv
#                       > bench/results/fix-permute-<device>-<date>.md
set -u -o pipefail
cd "$(dirname "$0")/.."
MODE=${1:-}
DIR=${2:-build-fix-gpu}
RUNS=${RUNS:-50}
# the cases: bench/fix/*.launch (the examples' kernels at sizes worth timing); CASES="a b"
# prepares only those (the others' results stay)
read -r -a CASES <<<"${CASES:-stencil2d copy3d fan2 cell3d naive}"

prepare() {
  local cc=${COALCHECK:-build/coalcheck} name launch s t0 t1 rc
  mkdir -p "$DIR/plans"
  [ -s "$DIR/fix.tsv" ] ||
    printf 'case\tstrategy\tchoice\tdecide_s\tsectors_before\tsectors_after\tverified\n' > "$DIR/fix.tsv"
  for name in "${CASES[@]}"; do
    launch=bench/fix/$name.launch
    rm -rf "$DIR/fix-$name-"* "$DIR/plans/$name."*
    sed -i "/^$name\t/d" "$DIR/fix.tsv"
    for s in model empirical; do
      t0=$(date +%s.%N)
      "$cc" fix --launch "$launch" -o "$DIR/fix-$name-$s" --strategy $s -q \
        --json "$DIR/fix-$name-$s.json" > "$DIR/fix-$name-$s.txt" 2>&1
      rc=$?
      t1=$(date +%s.%N)
      python3 - "$DIR/fix-$name-$s.json" "$name" "$s" "$t0" "$t1" "$rc" >> "$DIR/fix.tsv" <<'EOF'
import json, sys
path, name, s, t0, t1, rc = sys.argv[1:]
try:
    d = json.load(open(path))
except Exception:
    print(f"{name}\t{s}\t-\t{float(t1)-float(t0):.2f}\t-\t-\texit {rc}"); sys.exit()
ch = d.get("chosen") or {}
b = d["before"]["kernels"][0]["totals"]["sectors"]
a = d["after"]["kernels"][0]["totals"]["sectors"] if d.get("after") else "-"
shape = ch.get("permutation", "-") + (" +reshape" if ch.get("reshaped") else "")
print(f"{name}\t{s}\t{shape}\t{float(t1)-float(t0):.2f}\t{b}\t{a}\t{d['verified']}")
EOF
    done
    COALCHECK_GPU_PLAN="$DIR/plans/$name.orig" "$cc" --backend gpu --launch "$launch" -q
    for s in model empirical; do # the fix each strategy chose (often the same)
      COALCHECK_GPU_PLAN="$DIR/plans/$name.fixed-$s" "$cc" --backend gpu \
        --launch "$(ls "$DIR/fix-$name-$s"/*.launch)" -q 2>/dev/null ||
        echo "no fixed plan for $name (see $DIR/fix-$name-$s.txt)"
    done
  done
  cat "$DIR/fix.tsv"
}

device() {
  local OUT=${OUT:-$PWD/$DIR/out} B=$DIR/bin d n ms
  mkdir -p "$OUT" "$B"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader || true
  bash scripts/gpu-build.sh "$B" >/dev/null || { echo "build failed"; return 1; }
  printf 'plan\tmedian_ms\tmin_ms\tmax_ms\truns\tld_req\tld_sectors\tst_req\tst_sectors\tdram_bytes\tncu_ms\n' > "$OUT/fix-gpu.tsv"
  for d in "$DIR"/plans/*/; do
    n=$(basename "$d")
    grep -v '^time ' "$d/plan" > "$d/plan.t" && echo "time $RUNS time.txt" >> "$d/plan.t"
    "$B/coalcheck-gpu-launch" "$d/plan.t" || { echo "$n: launch failed"; continue; }
    ms=$(cat "$d/time.txt")
    grep -v '^time ' "$d/plan" > "$d/plan.n"
    ncu --csv --metrics l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,dram__bytes.sum,gpu__time_duration.sum \
      "$B/coalcheck-gpu-launch" "$d/plan.n" > "$OUT/$n.ncu.csv" 2>/dev/null
    python3 - "$OUT/$n.ncu.csv" "$n" "$ms" >> "$OUT/fix-gpu.tsv" <<'EOF'
import csv, sys
path, name, ms = sys.argv[1:]
rows = [r for r in csv.reader(open(path)) if len(r) > 10]
v = {}
for r in rows[1:]:
    v[r[-3]] = r[-1].replace(",", "")
def g(k): return v.get(k, "-")
t = ms.split()
print("\t".join([name] + t + [g("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"),
      g("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"),
      g("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"),
      g("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"), g("dram__bytes.sum"),
      g("gpu__time_duration.sum")]))
EOF
  done
  cat "$OUT/fix-gpu.tsv"
}

case "$MODE" in
  prepare) prepare ;;
  device) device ;;
  *) echo "usage: bench/fix-gpu.sh prepare|device [DIR]" >&2; exit 2 ;;
esac
