#!/usr/bin/env bash
# coalcheck gpu: the call stacks of every thread of an application that hangs under the
# injection library, without a debugger (the GPU machine has none): the library's
# COALCHECK_GPU_STACKS=1 handler writes a thread's stack on SIGUSR2, sent here to each
# thread with tgkill after WAIT seconds; frames in the library are resolved with
# addr2line. Runs on the GPU machine (device `run` tool):
#   bash scripts/gpu-hang-stacks.sh [WAIT] -- APP ARGS...
# Default: tests/gpu/apps/threads.cu `threads 4 1` (a host thread replaying a graph while
# three others launch kernels: hangs, bench/results/gpu-workloads-2026-11-22b.md).
set -u -o pipefail
# figures compared with ncu or by hand: every launch measured (the default samples)
export COALCHECK_GPU_EXACT=1
cd "$(dirname "$0")/.."
B=build-gpu-hang
WAIT=${1:-15}
mkdir -p $B
bash scripts/gpu-build.sh $B || exit 1
if [ "${2:-}" = "--" ]; then
  shift 2
  CMD=("$@")
else
  nvcc -O3 -lineinfo -arch=sm_90 -o $B/threads tests/gpu/apps/threads.cu || exit 1
  CMD=($B/threads 4 1)
fi
LIB=$PWD/$B/libcoalcheck_gpu.so
env LD_PRELOAD=$LIB COALCHECK_GPU_STACKS=1 COALCHECK_GPU_DEBUG=1 COALCHECK_GPU_QUIET=1 \
  "${CMD[@]}" > $B/app.out 2> $B/app.err &
pid=$!
sleep "$WAIT"
if ! kill -0 $pid 2>/dev/null; then
  wait $pid; echo "the application ended by itself (rc $?): no hang"; tail -5 $B/app.err; exit 0
fi
echo "== still running after ${WAIT}s: stacks of every thread"
python3 - $pid <<'PY'
import ctypes, os, signal, sys, time
pid = int(sys.argv[1])
libc = ctypes.CDLL(None, use_errno=True)
SYS_tgkill = 234  # x86_64
for tid in sorted(int(t) for t in os.listdir(f"/proc/{pid}/task")):
    libc.syscall(SYS_tgkill, pid, tid, int(signal.SIGUSR2))
    time.sleep(0.2)
PY
sleep 1
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
# resolve the library's frames: "libcoalcheck_gpu.so(+0x1234)" or "(func+0x12)"
grep -v '^coalcheck-gpu: event\|^coalcheck-gpu: launch\|^coalcheck-gpu: flush' $B/app.err |
  while IFS= read -r line; do
    case $line in
      *libcoalcheck_gpu.so\(+0x*)
        off=${line##*(+}; off=${off%%)*}
        echo "$line  = $(addr2line -f -i -e $LIB $off | paste -sd' ')" ;;
      *) echo "$line" ;;
    esac
  done | tail -400
echo "== last events before the hang"
grep '^coalcheck-gpu: \(event\|launch\|flush\|graph\)' $B/app.err | tail -12
