#!/usr/bin/env bash
# coalcheck gpu: real workloads under the injection library.
#   multistream  several streams with events           (tests/gpu/apps/multistream.cu)
#   graphs       a CUDA graph with parallel branches, uploaded once (cudaGraphUpload) and
#                replayed several times                (tests/gpu/apps/graphs.cu)
#   contexts     two CUDA contexts on the one GPU (primary + cuCtxCreate), the same kernel
#                in both plus one kernel in the second only (tests/gpu/apps/contexts.cu)
#   cdp          dynamic parallelism: a parent kernel launching child grids from the
#                device, the child also launched once from the host (tests/gpu/apps/cdp.cu)
#   threads      3 host threads (std::thread) launching the same and different kernels on
#                streams of their own at once (tests/gpu/apps/threads.cu); then once
#                `threads 4 1` under the library: a 4th thread replaying a graph (it hung
#                before the fix of 2026-11-22; timeout 45 s, rc 124 = hang)
# Expected per-kernel figures are derived by hand at the top of each app and copied into
# the HAND table below; the summary compares the library and Nsight Compute with them.
#
# Per app: the native run (results checked by the app itself: rc 0 = right), the run under
# the library with the event trace (COALCHECK_GPU_DEBUG=1, its JSON kept as APP.debug.json:
# a second, independent count), the run under the library with the report
# (COALCHECK_GPU_JSON), Nsight Compute on the same app
# (l1tex__t_{requests,sectors}_pipe_lsu_mem_global_op_{ld,st}.sum, one row per launch it
# profiles; graph kernel nodes one by one, ncu's default), a trace-mode pass
# (COALCHECK_GPU_TRACE, one round only: its stderr and the file's size are printed, the
# file is deleted), the comparison (scripts/gpu-compare.py on the JSON as written, and on
# the JSON with entries of one mangled name summed: a kernel run in two contexts is two
# CUfunctions, hence possibly two entries, while ncu sums by name) and launches counted by
# both (ncu also per context and stream). Then, with $DIR/carry/coalcheck present (the
# coalcheck binary and its libcjson), `coalcheck ./app`.
#
# Dynamic parallelism and ncu: ncu intercepts host-side launches; device-side launches
# (the cdp children) raise no host API call. Measured (H200, driver 580, ncu 2025.3,
# 2026-11-22 02:41Z): ncu lists only the host launches (parent 3 rows, child 1 row: the
# direct launch) and each parent row INCLUDES its children's traffic (parent ld requests
# 148,191 = 98,304 own + 49,152 children + 735 device-runtime accesses); the library
# counts the children too, with the parent's table (device launches inherit the parent's
# callback data), but in its "outside the kernel" slot (parent outside_requests 98,544 =
# the children's 98,304 + 240). The summary prints both, per kernel.
#
# Runs on the GPU machine (device `run` tool):  bash scripts/gpu-workloads.sh [DIR]
# Writes DIR/res/: APP.json, APP.txt, APP.ncu.csv, APP.debug.txt, APP.debug.json,
# APP.trace.txt, APP.cli.json, threads-graph.json (if it ends), and for graphs the diagnostic variants
# of how kernel nodes get their counter table (COALCHECK_GPU_DIAG=graph-launch-data|
# graph-both|graph-api-stream, src/gpu/inject.c; the default, per-function data, is the
# one equal to ncu); then $OUT (default DIR/out): workloads.md (tables) and workloads.tgz
# (DIR/res). Keep the log with `... 2>&1 | tee $OUT/log`. Every step has a timeout; a step
# that fails is reported (rc=...) and the script goes on with the next.
set -u -o pipefail
# figures compared with ncu or by hand: every launch measured (the default samples)
export COALCHECK_GPU_EXACT=1
cd "$(dirname "$0")/.." || exit 1
DIR=${1:-build-gpu-workloads}
OUT=${OUT:-$PWD/$DIR/out}
B=$DIR/bin
R=$DIR/res
rm -rf "$R" # this run's results only (a stale JSON must not pass for a new one)
mkdir -p "$OUT" "$B" "$R"
log() { echo "== $*"; }
# The device `run` tool stops a command after 600 s: steps that would start after
# BUDGET_S seconds are skipped (and said so), so that the tables are always written.
BUDGET_S=${BUDGET_S:-500}
over() {
  if [ "$SECONDS" -ge "$BUDGET_S" ]; then echo "SKIPPED (time budget ${BUDGET_S}s spent): $*"; return 0; fi
  return 1
}

log "device"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
nvcc --version | tail -1
DEVICE=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
export COALCHECK_GPU_DEVICE="$DEVICE"

APPS="multistream graphs contexts cdp threads"
appflags() { # extra nvcc flags of an app
  case $1 in
    contexts) echo "-lcuda" ;;
    cdp) echo "-rdc=true -lcudadevrt" ;;
    *) echo "" ;;
  esac
}

log "build"
NOLIB=0
timeout -k 5 300 bash scripts/gpu-build.sh "$B" || { echo "library build FAILED: no library runs"; NOLIB=1; }
for a in $APPS; do
  rm -f $B/$a
  # shellcheck disable=SC2046
  timeout -k 5 300 nvcc -O3 -lineinfo -arch=sm_90 $(appflags $a) -o $B/$a tests/gpu/apps/$a.cu \
    > $B/$a.build.txt 2>&1 &
done
wait
BUILT=""
for a in $APPS; do
  if [ -x $B/$a ]; then
    BUILT="$BUILT $a"
  else
    echo "build of $a FAILED:"; tail -20 $B/$a.build.txt
  fi
done
echo "built:$BUILT"
PRE="LD_PRELOAD=$PWD/$B/libcoalcheck_gpu.so"
M=""
for op in ld st; do
  M="$M,l1tex__t_requests_pipe_lsu_mem_global_op_$op.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_$op.sum"
done

totals() { # JSON -> "kernel grid launches outside ld-req ld-sect st-req st-sect" per entry
  python3 -c '
import json, sys
for k in json.load(open(sys.argv[1]))["kernels"]:
    g = k["totals"]["global"]
    print(k["name"].split("(")[0], "grid=%d" % k["grid"][0], k["launches"], "outside=%d" % k.get("outside_requests", 0),
          *(g[d].get(f, 0) for d in ("load", "store") for f in ("requests", "sectors")))
' "$1" 2>&1
}

declare -A RC_NAT RC_DBG RC_LIB RC_NCU RC_TR
for a in $BUILT; do
  over "$a: native and library runs" && continue
  log "$a: native"
  timeout -k 5 60 $B/$a; RC_NAT[$a]=$?; echo "rc=${RC_NAT[$a]}"
  [ $NOLIB = 1 ] && continue
  log "$a: under the library, event trace"
  timeout -k 5 60 env $PRE COALCHECK_GPU_DEBUG=1 COALCHECK_GPU_QUIET=1 \
    COALCHECK_GPU_JSON="$R/$a.debug.json" $B/$a > "$R/$a.debug.txt" 2>&1
  RC_DBG[$a]=$?; echo "rc=${RC_DBG[$a]}"
  grep -E '^coalcheck-gpu: (launch|graph)|results|error|warning|WRONG' "$R/$a.debug.txt" | head -60
  echo "events: $(grep -c 'event domain' "$R/$a.debug.txt")"
  grep 'event domain' "$R/$a.debug.txt" | sort | uniq -c
  echo "graph upload callbacks: $(grep -c '(upload)' "$R/$a.debug.txt")"
  echo "flushes: $(grep -c 'flush' "$R/$a.debug.txt")"
  grep 'flush' "$R/$a.debug.txt" | sort | uniq -c
  [ -s "$R/$a.debug.json" ] && { echo "totals (event-trace run):"; totals "$R/$a.debug.json"; }
  log "$a: under the library, report"
  timeout -k 5 60 env $PRE COALCHECK_GPU_JSON="$R/$a.json" $B/$a 2> "$R/$a.txt"
  RC_LIB[$a]=$?; echo "rc=${RC_LIB[$a]}"; head -c 4000 "$R/$a.txt"
  [ -s "$R/$a.json" ] && { echo "totals:"; totals "$R/$a.json"; }
done

for a in $BUILT; do
  over "$a: ncu" && continue
  log "$a: ncu"
  timeout -k 5 90 ncu --csv --print-kernel-base mangled --metrics "${M#,}" $B/$a > "$R/$a.ncu.csv" 2> $R/$a.ncu.err
  RC_NCU[$a]=$?; echo "ncu rc=${RC_NCU[$a]}"; tail -5 $R/$a.ncu.err; grep -E '==(WARNING|ERROR)==' "$R/$a.ncu.csv" | head -5
done

if [ $NOLIB = 0 ]; then
  for a in $BUILT; do
    # one round / replay: the trace holds every warp access (320 B a record)
    over "$a: trace mode" && continue
    log "$a: trace mode (COALCHECK_GPU_TRACE, $a 1)"
    rm -f "$R/$a.ccgpu"
    timeout -k 5 60 env $PRE COALCHECK_GPU_TRACE="$R/$a.ccgpu" COALCHECK_GPU_JSON="$R/$a.trace.json" \
      $B/$a 1 > "$R/$a.trace.txt" 2>&1
    RC_TR[$a]=$?; echo "rc=${RC_TR[$a]}"
    grep -v '^  ' "$R/$a.trace.txt" | head -30
    echo "trace file: $(stat -c %s "$R/$a.ccgpu" 2>/dev/null || echo none) bytes"
    rm -f "$R/$a.ccgpu"
  done
  if [[ " $BUILT " == *" threads "* ]] && ! over "threads 4 1"; then
    log "threads 4 1 (a 4th thread replays a graph), under the library; rc 124 = hang"
    timeout -k 5 45 env $PRE COALCHECK_GPU_JSON="$R/threads-graph.json" COALCHECK_GPU_DEBUG=1 \
      COALCHECK_GPU_QUIET=1 $B/threads 4 1 > "$R/threads-graph.debug.txt" 2>&1
    RC_LIB[threads-graph]=$?; echo "rc=${RC_LIB[threads-graph]}"
    grep -v 'event domain' "$R/threads-graph.debug.txt" | tail -6
    [ -s "$R/threads-graph.json" ] && totals "$R/threads-graph.json"
  fi
  if [[ " $BUILT " == *" graphs "* ]]; then
    for v in graph-launch-data graph-both graph-api-stream; do
      over "graphs $v" && continue
      log "graphs: kernel nodes with $v only (COALCHECK_GPU_DIAG=$v)"
      timeout -k 5 60 env $PRE COALCHECK_GPU_DIAG=$v COALCHECK_GPU_JSON="$R/graphs.$v.json" \
        COALCHECK_GPU_QUIET=1 $B/graphs
      echo "rc=$?"; totals "$R/graphs.$v.json"
    done
  fi
fi

if [ -x "$DIR/carry/coalcheck" ] && [ $NOLIB = 0 ]; then
  export LD_LIBRARY_PATH="$PWD/$DIR/carry${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export COALCHECK_GPU_LIB=$PWD/$B/libcoalcheck_gpu.so
  for a in $BUILT; do
    over "coalcheck ./$a" && continue
    log "the coalcheck command: coalcheck --top 4 ./$a"
    timeout -k 5 60 $DIR/carry/coalcheck --top 4 --json "$R/$a.cli.json" $B/$a
    echo "rc=$?"
  done
  if [[ " $BUILT " == *" graphs "* ]] && ! over "coalcheck --kernel-name axpy ./graphs"; then
    log "coalcheck --kernel-name axpy --launch-skip 3 --launch-count 4 ./graphs"
    timeout -k 5 60 $DIR/carry/coalcheck --kernel-name axpy --launch-skip 3 --launch-count 4 \
      --json "$R/graphs.filter.json" $B/graphs
    echo "rc=$?"
  fi
fi

# Hand figures (from the apps' top comments): app kernel variant launches ld-req ld-sect
# st-req st-sect. kernel = the demangled name without return type and arguments; "@G":
# only the report entry whose grid.x is G (a kernel in two contexts: one entry each).
cat > "$R/hand.tsv" <<'EOF'
multistream scale all 6 196608 786432 196608 786432
multistream gather4 all 3 24576 393216 24576 98304
multistream transpose all 3 98304 393216 98304 3145728
multistream combine all 3 49152 196608 24576 98304
graphs axpy all 11 720896 2883584 360448 1441792
graphs gather2 all 5 81920 655360 81920 327680
graphs add all 5 327680 1310720 163840 655360
contexts copy both-contexts 6 147456 589824 147456 589824
contexts copy@4096 primary-context 3 98304 393216 98304 393216
contexts copy@2048 created-context 3 49152 196608 49152 196608
contexts gather2 created-context 3 49152 393216 49152 196608
cdp child all-13-launches 13 65536 524288 65536 262144
cdp child host-launch-only 1 16384 131072 16384 65536
cdp parent own-copy-only(+launch-path:>=36-st) 3 98304 393216 98304 393216
threads scale all(3x4) 12 393216 1572864 393216 1572864
threads gather<2> all 4 32768 262144 32768 131072
threads gather<4> all 4 32768 524288 32768 131072
threads gather<8> all 4 32768 1048576 32768 131072
threads-graph scale all(3x4+4-graph) 16 524288 2097152 524288 2097152
threads-graph gather<2> all 4 32768 262144 32768 131072
threads-graph gather<4> all 4 32768 524288 32768 131072
threads-graph gather<8> all 4 32768 1048576 32768 131072
EOF

summary() { # app json ncu-csv(or -) hand [hand-only] -> markdown: launches, vs hand
  python3 - "$@" <<'PY'
import csv, json, os, subprocess, sys
from collections import defaultdict
app, jpath, npath, hpath = sys.argv[1:5]
hand_only = len(sys.argv) > 5
def short(name):
    return name.split("(")[0].split()[-1] if name else "?"
def demangle(m):  # a kernel ncu saw and the library did not
    try:
        return short(subprocess.run(["c++filt", m], capture_output=True, text=True, timeout=10).stdout.strip())
    except Exception:
        return m
try:
    rep = json.load(open(jpath))["kernels"]
except Exception as e:
    print(f"(no coalcheck JSON for {app}: {e})"); rep = []
FIG = [("load", "requests"), ("load", "sectors"), ("store", "requests"), ("store", "sectors")]
MET = ["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
       "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"]
ncu = defaultdict(lambda: defaultdict(float)); ids = defaultdict(set); ctx = defaultdict(set); strm = defaultdict(set)
if npath != "-" and os.path.exists(npath):
    with open(npath, newline="") as f:
        for r in csv.DictReader([l for l in f if l.startswith('"')]):
            k = r["Kernel Name"]; ids[k].add(r["ID"]); ctx[k].add(r.get("Context", "?")); strm[k].add(r.get("Stream", "?"))
            try: ncu[k][r["Metric Name"]] += float(r["Metric Value"].replace(",", ""))
            except ValueError: pass
byname = defaultdict(list)
for k in rep: byname[k["mangled"]].append(k)
names = {m: short(ks[0]["name"]) for m, ks in byname.items()}
for m in ids:
    if m not in names:
        names[m] = demangle(m)
if not hand_only:
    print("| kernel | report entries (grid.x: launches, outside-kernel requests) | launches coalcheck | launches ncu | ncu contexts | ncu streams |")
    print("| --- | --- | ---: | ---: | --- | --- |")
for m in names:
    if hand_only: break
    ks = byname.get(m, [])
    ent = ", ".join(f"{k['grid'][0]}: {k['launches']}, {k.get('outside_requests', 0)}" for k in ks) or "none"
    print(f"| {names[m]} | {len(ks)} ({ent}) | {sum(k['launches'] for k in ks)} | {len(ids.get(m, ()))} | "
          f"{' '.join(sorted(ctx.get(m, ())))} | {' '.join(sorted(strm.get(m, ())))} |")
def cc_fig(ks):
    return [sum(k["totals"]["global"][d].get(f, 0) for k in ks) for d, f in FIG]
print("\n| kernel | hand variant | launches cc / ncu / hand | figure | coalcheck | ncu | hand | cc = hand | ncu = hand |")
print("| --- | --- | --- | --- | ---: | ---: | ---: | --- | --- |")
nh = nbad = 0
for line in open(hpath):
    p = line.split()
    if len(p) != 8 or p[0] != app: continue
    kname, var, hl, hv = p[1], p[2], int(p[3]), [int(x) for x in p[4:]]
    grid = None
    if "@" in kname: kname, grid = kname.split("@")[0], int(kname.split("@")[1])
    ms = [m for m in names if names[m] == kname]
    ks = [k for m in ms for k in byname.get(m, []) if grid is None or k["grid"][0] == grid]
    cc = cc_fig(ks) if ks else None
    nv = [ncu[ms[0]].get(x) for x in MET] if ms and ms[0] in ncu and grid is None else [None] * 4
    ncl = len(ids.get(ms[0], ())) if ms and grid is None and npath != "-" else "-"
    ccl = sum(k["launches"] for k in ks) if ks else 0
    for i, (d, f) in enumerate(FIG):
        c = cc[i] if cc else None
        n = None if nv[i] is None else int(nv[i])
        ok = c == hv[i]
        nh += 1; nbad += not ok
        print(f"| {kname}{'@' + str(grid) if grid else ''} | {var} | {ccl} / {ncl} / {hl} | {'ld' if d == 'load' else 'st'} {f} | "
              f"{'n/a' if c is None else format(c, ',')} | {'n/a' if n is None else format(n, ',')} | {hv[i]:,} | "
              f"{'yes' if ok else '**no**'} | {'-' if n is None else ('yes' if n == hv[i] else '**no**')} |")
print(f"\n{app}: {nh - nbad} of {nh} coalcheck figures equal the hand figures"
      + (" (cdp: only one of the two child variants can hold; the parent's own-copy row is a lower bound)" if app == "cdp" else ""))
if not hand_only and any(len(v) > 1 for v in byname.values()):
    out = jpath.replace(".json", ".merged.json")
    merged = []
    def add(a, b):
        for key, v in b.items():
            if isinstance(v, dict): add(a.setdefault(key, {}), v)
            elif isinstance(v, (int, float)): a[key] = a.get(key, 0) + v
    for m, ks in byname.items():
        e = {"name": ks[0]["name"], "mangled": m, "grid": ks[-1]["grid"], "block": ks[-1]["block"],
             "launches": sum(k["launches"] for k in ks), "totals": {}}
        for k in ks: add(e["totals"], k["totals"])
        merged.append(e)
    json.dump({"kernels": merged}, open(out, "w"))
    print(f"\nentries of one mangled name summed into {out} (compared below)")
PY
}

log "tables"
{
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ); device: $DEVICE; $(nvcc --version | tail -1)"
  echo "command: bash scripts/gpu-workloads.sh"
  echo "apps built:$BUILT"
  for a in $APPS; do
    echo; echo "## $a"; echo
    if [[ " $BUILT " != *" $a "* ]]; then echo "build FAILED (see the log)"; continue; fi
    echo "rc: native ${RC_NAT[$a]:-?}, library+debug ${RC_DBG[$a]:-?}, library ${RC_LIB[$a]:-?}," \
         "ncu ${RC_NCU[$a]:-?}, trace mode ${RC_TR[$a]:-?}" \
         "(trace: $(grep -m3 -E 'coalcheck-gpu: (trace|error)' "$R/$a.trace.txt" 2>/dev/null | tr '\n' ' '))"
    echo
    summary "$a" "$R/$a.json" "$R/$a.ncu.csv" "$R/hand.tsv"
    echo; echo "scripts/gpu-compare.py (the JSON as written vs ncu):"; echo
    if [ -s "$R/$a.json" ] && [ -s "$R/$a.ncu.csv" ]; then
      python3 scripts/gpu-compare.py "$R/$a.json" "$R/$a.ncu.csv" 2>&1
    else
      echo "(no comparison: the library's JSON or ncu's CSV is missing)"
    fi
    if [ -s "$R/$a.merged.json" ] && [ -s "$R/$a.ncu.csv" ]; then
      echo "scripts/gpu-compare.py (entries of one name summed vs ncu):"; echo
      python3 scripts/gpu-compare.py "$R/$a.merged.json" "$R/$a.ncu.csv" 2>&1
    fi
    if [ -s "$R/$a.debug.json" ]; then
      echo "event-trace run (second count), vs hand:"; echo
      summary "$a" "$R/$a.debug.json" - "$R/hand.tsv" hand-only
    fi
    if [ "$a" = threads ]; then
      echo; echo "### threads 4 1 (a 4th thread replays a graph), library rc ${RC_LIB[threads-graph]:-?} (124: hang)"; echo
      summary threads-graph "$R/threads-graph.json" - "$R/hand.tsv"
    fi
  done
} > "$OUT/workloads.md" 2>&1
cat "$OUT/workloads.md"
cp "$R"/*.debug.txt "$OUT/" 2>/dev/null
tar czf "$OUT/workloads.tgz" -C "$DIR" res
