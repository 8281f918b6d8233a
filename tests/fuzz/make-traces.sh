#!/usr/bin/env bash
# Writes the seeds of corpus/fuzz_trace: traces recorded with `coalcheck record` of tiny
# launches (a few warps) of kernels that use global, shared and local memory, a few
# hundred bytes each, in the two input forms of fuzz_trace.c (needs python3 and zstd).
# Usage: tests/fuzz/make-traces.sh [COALCHECK] (default build/coalcheck).
set -euo pipefail
cd "$(dirname "$0")/../.."
cc=${1:-build/coalcheck}
out=tests/fuzz/corpus/fuzz_trace
ex=examples
rec() { local name=$1; shift; "$cc" record -q "$@" -o "$out/$name.cctrace" >/dev/null; }
rec scale tests/e2e/data/kernels.ptx --kernel scale --grid 2 --block 32 \
  --arg 'out=f32[n]:zero' --arg 'in=f32[n]:iota' --arg n=40 --arg a=2
rec transpose_tiled $ex/transpose/transpose.cu --kernel transpose_tiled --grid 1,1 \
  --block 32,8 --arg 'out=f32[n*n]:zero' --arg 'in=f32[n*n]:iota' --arg n=32
rec transpose_naive $ex/transpose/transpose.cu --kernel transpose_naive --grid 1,4 \
  --block 32,8 --arg 'out=f32[n*n]:zero' --arg 'in=f32[n*n]:iota' --arg n=32
rec histogram $ex/histogram/histogram.cu --kernel histogram_shared --grid 1 --block 256 \
  --arg 'bins=u32[256]:zero' --arg 'data=u8[n]:random:3' --arg n=512
rec local_array $ex/local_array/local_array.cu --kernel local_divergent --grid 1 --block 32 \
  --arg 'out=f32[n]:zero' --arg 'in=f32[n]:random:31' --arg s=7 --arg n=32

# fuzz_trace's inputs: byte 0 even + a whole file, or byte 0 odd + the uncompressed events
# of one data block (fuzz_trace.c); the second kind made from each file's first block
for f in "$out"/*.cctrace; do
  b=${f%.cctrace}
  { printf '\0'; cat "$f"; } > "$b.file"
  python3 - "$f" "$b.zst" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
h = struct.unpack_from('<I', d, 12)[0]
o = 16 + h + 4                               # first block header
tag, raw, stored = d[o:o + 4], *struct.unpack_from('<II', d, o + 4)
assert tag == b'CCBD', tag
open(sys.argv[2], 'wb').write(d[o + 20:o + 20 + stored])
PY
  { printf '\1'; zstd -q -d -c "$b.zst"; } > "$b.events"
  rm -f "$b.zst" "$f"
done

ls -l "$out"
