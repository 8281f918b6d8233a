#!/usr/bin/env bash
# coalcheck bench: the GPU backend's overhead on the apps of bench/gpuapps/ (issue 14).
#   bash bench/gpu-overhead.sh BUILD OUT
# BUILD holds libcoalcheck_gpu.so and coalcheck_gpu_patch.fatbin (scripts/gpu-build.sh or
# the CMake build's src/gpu/) and, when it exists there, the coalcheck binary; OUT gets
# the apps, their outputs and gpu-overhead.md. Each app runs
#   native      ./app
#   fast        coalcheck -q --json F ./app   (the default mode: launch sampling)
#   exact       the same with --exact          (every launch counted)
#   floor       exact, patched, with callbacks that return at once (a kernel regex that
#               matches nothing): what the instrumentation alone costs
#   memcheck    compute-sanitizer --tool memcheck ./app
#   ifast       coalcheck -q --json F ./app   with inline PTX counters (--gpu-mode
#               inline, the executables' default: CTA and launch sampling)
#   iexact      the same with --exact          (every CTA of every launch)
# INLINE=DIR: the folder of libcoalcheck_inline.so (default BUILD; built elsewhere and
# carried with the libcjson.so.1 and libzstd.so.1 it needs, put on LD_LIBRARY_PATH for
# the inline runs only).
# Without a runnable coalcheck (the GPU machine lacks the project's -dev packages) the
# library is preloaded with the environment coalcheck gives the application
# (LD_PRELOAD, COALCHECK_GPU_JSON, COALCHECK_GPU_QUIET; --exact: COALCHECK_GPU_EXACT=1).
# COALCHECK_GPU_PROFILE=1 adds the library's breakdown line. Kernel time: the app's own
# CUDA events (common.cuh). REPS=N runs native N times (median; default 3), others once;
# FLOOR=0 skips the floor runs; MODES="native fast" a subset of the modes; APPS="a b" a
# subset of the apps; LIMIT seconds per run (default 120).
set -u -o pipefail
cd "$(dirname "$0")/.."
BUILD=$(cd "${1:?usage: bench/gpu-overhead.sh BUILD OUT}" && pwd)
OUT=$(mkdir -p "${2:?usage: bench/gpu-overhead.sh BUILD OUT}" && cd "$2" && pwd)
REPS=${REPS:-3}
APPS=${APPS:-"gemv_rows gemv_cols transpose_naive transpose_shared stencil2d covariance stride_gather gramschmidt lu adi fdtd2d jacobi1d"}
LIMIT=${LIMIT:-120}
INLINE=${INLINE:-$BUILD}
ILIB=$INLINE/libcoalcheck_inline.so
[ -f "$ILIB" ] || ILIB=$BUILD/src/gpu/libcoalcheck_inline.so
LIB=$BUILD/libcoalcheck_gpu.so
[ -f "$LIB" ] || LIB=$BUILD/src/gpu/libcoalcheck_gpu.so
CC=""
for c in "$BUILD/coalcheck" "$BUILD/src/cli/coalcheck"; do
  [ -x "$c" ] && "$c" --version >/dev/null 2>&1 && CC=$c && break
done
DEVICE=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
export COALCHECK_GPU_DEVICE="$DEVICE"
echo "device: $DEVICE; library: $LIB; coalcheck: ${CC:-none (library preloaded)}" | tee "$OUT/setup.txt"
for a in $APPS; do
  nvcc -O3 -lineinfo -arch=sm_90 -o "$OUT/$a" "bench/gpuapps/$a.cu" || exit 1
done

# one run: MODE APP -> OUT/APP.MODE.{out,err}[, .json]
run() {
  local mode=$1 app=$2 tag=${3:-$1}
  local o="$OUT/$app.$tag" bin="$OUT/$app"
  case $mode in
    native) timeout "$LIMIT" "$bin" ;;
    memcheck) timeout "$LIMIT" compute-sanitizer --tool memcheck --print-limit 1 "$bin" ;;
    fast|exact|floor)
      local ex=""; [ "$mode" = fast ] || ex=1
      local rx=""; [ "$mode" = floor ] && rx='^no kernel has this name$'
      if [ -n "$CC" ] && [ "$mode" != floor ]; then
        COALCHECK_GPU_PROFILE=1 timeout "$LIMIT" "$CC" -q --json "$o.report.json" \
          --gpu-json "$o.json" ${ex:+--exact} "$bin"
      else
        COALCHECK_GPU_PROFILE=1 COALCHECK_GPU_EXACT=$ex COALCHECK_KERNEL_REGEX=$rx \
          COALCHECK_GPU_QUIET=1 COALCHECK_GPU_JSON="$o.json" LD_PRELOAD="$LIB" \
          timeout "$LIMIT" "$bin"
      fi ;;
    ifast|iexact)
      local ex=""; [ "$mode" = iexact ] && ex=1
      if [ -n "$CC" ]; then
        timeout "$LIMIT" "$CC" -q --gpu-mode inline --json "$o.report.json" \
          --gpu-json "$o.json" ${ex:+--exact} "$bin"
      else
        LD_LIBRARY_PATH="$INLINE${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" COALCHECK_GPU_EXACT=$ex \
          COALCHECK_GPU_QUIET=1 COALCHECK_GPU_JSON="$o.json" LD_PRELOAD="$ILIB" \
          timeout "$LIMIT" "$bin"
      fi ;;
  esac > "$o.out" 2> "$o.err"
  echo "$app $tag rc=$? $(grep -o 'kernel_ms=[0-9.]*' "$o.out")"
}

MODES=${MODES:-"native fast exact floor memcheck ifast iexact"}
[ "${FLOOR:-1}" = 1 ] || MODES=${MODES/floor/}
for a in $APPS; do
  for m in $MODES; do
    if [ "$m" = native ]; then
      for r in $(seq 1 "$REPS"); do run native "$a" "native$r"; done
    else
      run "$m" "$a"
    fi
  done
done
python3 bench/gpu-overhead.py "$OUT" "$DEVICE" "bash bench/gpu-overhead.sh $*" $APPS \
  > "$OUT/gpu-overhead.md"
cat "$OUT/gpu-overhead.md"
case " $MODES " in *" ifast "*|*" iexact "*)
  python3 bench/gpu-inline-app.py "$OUT" "$DEVICE" "bash bench/gpu-overhead.sh $*" $APPS \
    > "$OUT/gpu-inline-app.md"
  cat "$OUT/gpu-inline-app.md" ;;
esac
