#!/usr/bin/env bash
# Fetches the Compute Sanitizer API headers (and libsanitizer-public.so) where the CUDA
# toolkit lacks compute-sanitizer/ (e.g. CI): the PyPI wheel nvidia-cuda-sanitizer-api-cu12
# unpacked into build-sanitizer-api/ (git-ignored by /build*/). src/gpu/CMakeLists.txt
# looks there. The 13.x wheels were not installable from the index seen on 2026-11-22
# (only a 0.0.0a0 placeholder matched), so the 12.8 API is used: the parts coalcheck calls
# are unchanged between 12.8 and 13.0 (compile-checked with nvcc 13.0.88).
set -euo pipefail
cd "$(dirname "$0")/.."
DEST=build-sanitizer-api
VERSION=${SANITIZER_API_VERSION:-12.8.93}
if [ -f $DEST/nvidia/cuda_sanitizer_api/include/sanitizer.h ]; then
  echo "fetch-sanitizer-headers: already in $DEST"; exit 0
fi
mkdir -p $DEST
python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 \
  --implementation cp --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 \
  -d $DEST "nvidia-cuda-sanitizer-api-cu12==$VERSION"
(cd $DEST && python3 -m zipfile -e nvidia_cuda_sanitizer_api_cu12-*.whl .)
ls $DEST/nvidia/cuda_sanitizer_api/include/sanitizer.h
