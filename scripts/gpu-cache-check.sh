#!/usr/bin/env bash
# coalcheck gpu: the cache model's L2 sectors and DRAM bytes (src/cache) against Nsight
# Compute, per kernel: every bundled example launch (examples/*/*.launch) and the large
# shapes of bench/ (footprints beyond the 50 MiB L2: naive and tiled 4096x4096 transposes,
# row sums of 4096x16384, a 512 MiB strided copy, PolyBench atax's two gemv shapes at
# n = 4096) and the probes of bench/cache_probe (why the naive transposes miss the goal).
#
# Two halves, because the emulator runs where coalcheck is built and the GPU elsewhere:
#   here (no GPU needed):  bash scripts/gpu-cache-check.sh prepare [DIR]
#       for each launch L: DIR/plans/L/ (the launch plan `coalcheck --backend gpu` writes
#       with COALCHECK_GPU_PLAN: PTX, arguments, buffer hashes) and DIR/emu/L.json (the
#       emulator's report with the cache model of CACHE, default h200). DIR defaults to
#       build-gpu-cache; COALCHECK to build/coalcheck; CASES_RE=ERE a subset by name. A few
#       minutes (the large shapes are emulated too).
#   on the GPU machine:    bash scripts/gpu-cache-check.sh device [DIR]
#       measures the device's speeds (scripts/gpu-calibrate.sh -> DIR/res/calibration.json,
#       SKIP_CALIBRATE=1 skips it), builds coalcheck-gpu-launch (scripts/gpu-build.sh),
#       runs each plan once under `ncu --metrics` (no injection library: the kernel as
#       compiled by the driver from the plan's PTX; ncu flushes the caches before the
#       kernel, as the model starts empty) with lts__t_sectors_srcunit_tex_op_{read,write,
#       atom,red}.sum, dram__bytes_{read,write}.sum, gpu__time_duration.sum and, where this
#       ncu has them, the L1 load hit sectors and the shared memory configuration; then
#       prints the comparison (below) and packs DIR/res into $OUT/gpu-cache.tgz with the
#       log $OUT/gpu-cache.log and the table $OUT/gpu-cache-check.md. The probes
#       (probe_*) get more metrics (probe_metrics). FIRST_RE=ERE measures the names it
#       matches first; DEADLINE_S=N starts no launch after N seconds of the script (the
#       table and the archive are still made); NCU_TIMEOUT=N per launch (default 600).
#   anywhere, again:       bash scripts/gpu-cache-check.sh compare [DIR]
#       the table from DIR/emu and DIR/res (scripts/gpu-cache-compare.py).
# The table: per kernel, predicted vs measured L2 sectors (read, write) and DRAM bytes
# (read, written during the kernel; beside the written prediction, the bytes the model
# leaves dirty in L2 at the kernel's end, which ncu does not count as written), the
# footprint (the plan's buffers), and the goal of issue 12: DRAM bytes within 10% where
# the footprint exceeds the L2 (50 MiB), within 20% elsewhere.
# Every GPU step has a timeout and says what failed; the script goes on with the next.
set -u -o pipefail
cd "$(dirname "$0")/.."
MODE=${1:-}
DIR=${2:-build-gpu-cache}
log() { echo "== $*"; }

# name|source (empty: the launch file names it)|launch file; CASES_RE=ERE keeps only the
# names it matches (e.g. '^probe_' for the probes alone), in both halves
cases() {
  all_cases | grep -E -- "${CASES_RE:-.}"
}

all_cases() {
  local f
  for f in examples/*/*.launch; do
    echo "$(basename "$(dirname "$f")")_$(basename "$f" .launch)||$f"
  done
  echo "transpose_naive_4096|examples/transpose/transpose.cu|bench/transpose_naive_4096.launch"
  echo "transpose_tiled_4096|examples/transpose/transpose.cu|bench/transpose_tiled_4096.launch"
  echo "row_sums_thread_4096|examples/row_sums/row_sums.cu|bench/row_sums_thread_4096.launch"
  echo "strided_copy_64m|examples/strided_copy/strided_copy.cu|bench/strided_copy_64m.launch"
  echo "gemv_rows_4096|examples/gemv/gemv.cu|bench/gemv_rows_4096.launch"
  echo "gemv_cols_4096|examples/gemv/gemv.cu|bench/gemv_cols_4096.launch"
  for f in bench/cache_probe/*.launch; do # the transposes' DRAM excess, told apart
    echo "probe_$(basename "$f" .launch)|bench/cache_probe/probe.cu|$f"
  done
}

prepare() {
  local cc=${COALCHECK:-build/coalcheck} cache=${CACHE:-h200} n src f ok=0 bad=0
  [ -x "$cc" ] || { echo "prepare: no coalcheck binary at $cc (build it, or set COALCHECK)"; return 1; }
  mkdir -p "$DIR/plans" "$DIR/emu"
  while IFS='|' read -r n src f; do
    rm -rf "$DIR/plans/$n"
    if COALCHECK_GPU_PLAN="$DIR/plans/$n" "$cc" --backend gpu $src --launch "$f" -q &&
       "$cc" $src --launch "$f" -q --cache "$cache" --json "$DIR/emu/$n.json" > /dev/null; then
      ok=$((ok + 1))
    else
      echo "prepare: FAILED $n ($f)"; bad=$((bad + 1)); rm -rf "$DIR/plans/$n"
    fi
  done < <(cases)
  echo "prepare: $ok launches ready in $DIR ($bad failed); model: --cache $cache"
  [ "$bad" -eq 0 ]
}

# The metrics this ncu knows, of the wanted ones (a metric it does not know fails the
# whole run); the four of issue 12 and the duration are always asked for.
metrics() {
  local want="lts__t_sectors_srcunit_tex_op_read.sum lts__t_sectors_srcunit_tex_op_write.sum
    lts__t_sectors_srcunit_tex_op_atom.sum lts__t_sectors_srcunit_tex_op_red.sum
    dram__bytes_read.sum dram__bytes_write.sum gpu__time_duration.sum"
  local extra="l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum
    l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum launch__shared_mem_config_size"
  local m list known
  list=$(echo $want | tr ' ' ',')
  known=$(timeout 120 ncu --query-metrics --chip "${CHIP:-gh100}" 2>/dev/null | awk '{ print $1 }')
  for m in $extra; do
    if echo "$known" | grep -qx "${m%.sum}"; then list="$list,$m"; else echo "(ncu lacks $m: left out)" >&2; fi
  done
  echo "$list"
}

# The probes' metrics: the launch metrics and, where this ncu knows them, the L2's own
# view of the probes' stores (hits and misses of the write lookups, traffic between the
# two L2 partitions, fills from DRAM) and the DRAM's sectors. The full list of the lts__
# and dram__ metrics this ncu knows goes to DIR/res/metrics-lts-dram.txt.
probe_metrics() {
  local list=$1 m known
  local extra="lts__t_sectors_srcunit_tex_op_write_lookup_hit.sum
    lts__t_sectors_srcunit_tex_op_write_lookup_miss.sum lts__t_sectors_srcunit_ltcfabric.sum
    lts__t_sectors_srcunit_ltcfabric_op_write.sum lts__t_sectors_srcunit_ltcfabric_op_read.sum
    lts__d_sectors_fill_device.sum lts__t_sectors_aperture_device_op_read_lookup_miss.sum
    dram__sectors_read.sum dram__sectors_write.sum"
  known=$(timeout 120 ncu --query-metrics --chip "${CHIP:-gh100}" 2>/dev/null | awk '{ print $1 }')
  echo "$known" | grep -E '^(lts__|dram__|fbpa__)' > "$DIR/res/metrics-lts-dram.txt"
  for m in $extra; do
    if echo "$known" | grep -qx "${m%.sum}"; then list="$list,$m"; else echo "(ncu lacks $m: left out)" >&2; fi
  done
  echo "$list"
}

# The plans in the order they are measured: the names matching FIRST_RE (ERE) first, so
# that a run cut short by DEADLINE_S (seconds since the script started: no launch is
# started after it) has what matters most.
plan_order() {
  local d
  for d in "$DIR"/plans/*/; do
    echo "$d"
  done | awk -v re="${FIRST_RE:-^$}" '{ n = $0; sub(/\/$/, "", n); sub(/.*\//, "", n); if (n ~ re) print; else rest = rest $0 "\n" } END { printf "%s", rest }'
}

device() {
  local B=$DIR/bin d n rc M
  mkdir -p "$DIR/res" "$B"
  log "device"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv,noheader || true
  nvcc --version | tail -1 || true
  ncu --version | tail -1 || { echo "device: ncu not found: stopping"; return 1; }
  [ -d "$DIR/plans" ] && [ -n "$(ls "$DIR/plans")" ] || { echo "device: no plans in $DIR/plans (run prepare here first)"; return 1; }
  if [ -z "${SKIP_CALIBRATE:-}" ]; then
    log "calibration (scripts/gpu-calibrate.sh)"
    timeout 600 bash scripts/gpu-calibrate.sh "$DIR/res/calibration.json" || echo "calibration failed: going on without it"
  fi
  log "build coalcheck-gpu-launch (scripts/gpu-build.sh)"
  bash scripts/gpu-build.sh "$B" > "$DIR/res/build.log" 2>&1 || { echo "build failed:"; tail -20 "$DIR/res/build.log"; return 1; }
  M=$(metrics)
  MP=$(probe_metrics "$M")
  log "ncu per launch: $M"
  log "ncu per probe (probe_*): $MP"
  for d in $(plan_order); do
    n=$(basename "$d")
    if [ -n "${DEADLINE_S:-}" ] && [ "$SECONDS" -ge "$DEADLINE_S" ]; then
      echo "$n: not measured (DEADLINE_S=$DEADLINE_S reached)"; continue
    fi
    case $n in probe_*) m=$MP ;; *) m=$M ;; esac
    timeout "${NCU_TIMEOUT:-600}" ncu --csv --print-units base --print-kernel-base mangled --metrics "$m" \
      "$B/coalcheck-gpu-launch" "$d/plan" > "$DIR/res/$n.ncu.csv" 2> "$DIR/res/$n.ncu.err"
    rc=$?
    echo "$n: ncu rc=$rc (${SECONDS}s)$( [ $rc -ne 0 ] && echo " ($(grep -m1 -i error "$DIR/res/$n.ncu.err"))")"
  done
  log "predicted vs measured"
  python3 scripts/gpu-cache-compare.py "$DIR" | tee "$OUT/gpu-cache-check.md"
  tar czf "$OUT/gpu-cache.tgz" -C "$DIR" res emu
}

case $MODE in
  prepare) prepare ;;
  device)
    OUT=${OUT:-$PWD/$DIR/out}
    mkdir -p "$OUT"
    device 2>&1 | tee "$OUT/gpu-cache.log" ;;
  compare) python3 scripts/gpu-cache-compare.py "$DIR" ;;
  *) echo "usage: $0 prepare|device|compare [DIR]"; exit 2 ;;
esac
