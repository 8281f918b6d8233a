#!/usr/bin/env bash
# Builds the GPU backend without CMake (the GPU machine lacks the project's Debian
# -dev packages): DIR/libcoalcheck_gpu.so (the injection library), DIR/
# coalcheck_gpu_patch.fatbin (its device patch, sm_90) and DIR/coalcheck-gpu-launch (the
# driver-API launcher of --backend gpu). The one source list of the scripts/gpu-*.sh
# checks; src/gpu/CMakeLists.txt builds the same for the project's own build.
#   bash scripts/gpu-build.sh DIR        (SAN=compute-sanitizer root, default the toolkit's)
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${1:?usage: scripts/gpu-build.sh DIR}
CUDA=${CUDA_HOME:-/usr/local/cuda}
SAN=${SAN:-$CUDA/compute-sanitizer}
mkdir -p "$DIR"
CFLAGS=(-std=c11 -O2 -g -D_GNU_SOURCE -Wall -Wextra -Wshadow -Wno-unused-parameter
        -Wstrict-prototypes -Wmissing-prototypes -Werror -Isrc -I"$SAN/include" -I"$CUDA/include")
LIB_SRCS=(src/gpu/inject.c src/gpu/inject_env.c src/gpu/inject_exit.c
          src/gpu/counters.c src/gpu/sassmap.c src/gpu/filter.c
          src/gpu/report.c src/gpu/sample.c src/gpu/trace.c src/util/err.c src/util/fileio.c src/util/mem.c)
SANLIB=$SAN
[ -e "$SAN/libsanitizer-public.so" ] || SANLIB=$SAN/lib
gcc "${CFLAGS[@]}" -fPIC -shared -o "$DIR/libcoalcheck_gpu.so" "${LIB_SRCS[@]}" \
  -L"$SANLIB" -Wl,-rpath,"$SANLIB" -lsanitizer-public -lstdc++ -ldl -lpthread -lm
nvcc --fatbin --compile-as-tools-patch -I"$SAN/include" -Isrc/gpu \
  -gencode arch=compute_90,code=sm_90 -o "$DIR/coalcheck_gpu_patch.fatbin" src/gpu/patch.cu
gcc "${CFLAGS[@]}" -o "$DIR/coalcheck-gpu-launch" src/gpu/launch.c src/launch/arg.c \
  src/launch/value.c src/launch/bind.c src/launch/layout.c src/util/err.c src/util/fileio.c \
  src/util/mem.c -ldl -lm
