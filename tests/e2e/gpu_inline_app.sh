#!/usr/bin/env bash
# Application mode with inline counters (libcoalcheck_inline.so, src/gpu/hook.c and
# inline_app.c) end to end without a GPU: a stand-in driver (data/inline_fake_cuda.c:
# host memory, a launch adds fixed figures to the counter buffer it is passed) and an
# application that reaches it as static cudart does (data/inline_fake_app.c: dlopen,
# dlsym of cuGetProcAddress_v2, cuLibraryLoadData of a real nvcc fatbin). Checks: the
# library swaps the entry points, hands the driver instrumented PTX, appends the buffer,
# samples launches, and its report (through `coalcheck import` and `coalcheck ./app`)
# carries the figures derived by hand below. Skips without a C compiler or nvcc.
source "$(dirname "$0")/data/common.bash"
NVCC=$(find_nvcc)
CC=$(command -v cc || command -v gcc)
LIB=$(dirname "$COALCHECK")/src/gpu/libcoalcheck_inline.so
[ -n "$NVCC" ] && [ -n "$CC" ] || { echo "skip: no nvcc or C compiler"; exit 77; }
[ -f "$LIB" ] || { echo "skip: libcoalcheck_inline.so not built (no cuda.h)"; exit 77; }
mkdir -p "$TMP/drv"
"$CC" -shared -fPIC -o "$TMP/drv/libcuda.so.1" "$DATA/inline_fake_cuda.c" &&
  "$CC" -o "$TMP/app" "$DATA/inline_fake_app.c" -ldl || { fail "cannot build the fakes"; exit 1; }
printf '__global__ void k1(float *a, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] *= 2; }\n' > "$TMP/k.cu"
"$NVCC" -arch=sm_90 -fatbin -o "$TMP/k.fatbin" "$TMP/k.cu" || { fail "nvcc -fatbin"; exit 1; }
export LD_LIBRARY_PATH="$TMP/drv" FAKE_NPARAMS=2
run() { # JSON LAUNCHES GRID ENV...: the app under the library
  local json=$1 n=$2 g=$3; shift 3
  env "$@" COALCHECK_GPU_JSON="$json" LD_PRELOAD="$LIB" "$TMP/app" "$TMP/k.fatbin" _Z2k1Pfi \
    "$n" "$g" > "$TMP/app.out" 2> "$TMP/app.err" || fail "the app failed: $(cat "$TMP/app.err")"
}
field() { # JSON EXPR: a Python expression over d (the report)
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"
}
command -v python3 > /dev/null || { echo "skip: no python3"; exit 77; }

# exact: 3 launches of 5 CTAs, every one instrumented with its buffer: requests 3 x 5 = 15,
# lanes 32 x 15 = 480, sectors 4 x 15 = 60 at the kernel's one load (site 0)
run "$TMP/e.json" 3 5 COALCHECK_GPU_EXACT=1
grep -q "load instrumented PTX" "$TMP/app.err" || fail "the driver got no instrumented PTX"
[ "$(grep -c 'buffer set' "$TMP/app.err")" = 3 ] || fail "exact: not every launch had its buffer"
[ "$(field "$TMP/e.json" 'd["kernels"][0]["instructions"][0]["requests"]')" = 15 ] ||
  fail "exact: requests $(field "$TMP/e.json" 'd["kernels"][0]["instructions"][0]')"
[ "$(field "$TMP/e.json" '[d["kernels"][0]["instructions"][0][f] for f in ("lanes","sectors")]')" = "[480, 60]" ] ||
  fail "exact: lanes, sectors"
[ "$(field "$TMP/e.json" 'd["kernels"][0]["launches"]')" = 3 ] || fail "exact: launches"

# fast, 3 launches: all in the head (4), each counts 1 CTA of 5 (1 in 8, run 0's pick is
# 0); the stand-in adds 5 per launch whatever the sample, so the estimate is 15 x 15 / 3
run "$TMP/f.json" 3 5
[ "$(field "$TMP/f.json" 'd["kernels"][0]["instructions"][0]["requests"]')" = 75 ] ||
  fail "fast: requests $(field "$TMP/f.json" 'd["kernels"][0]["instructions"][0]')"
[ "$(field "$TMP/f.json" '(d["kernels"][0]["ctas"], d["kernels"][0]["sampled_ctas"])')" = "(15, 3)" ] ||
  fail "fast: ctas"

# fast, 300 launches: the head's 4, then launches 4, 68, 132, 196, 260 of the tail (1 in
# 64): 9 measured, 291 with a NULL buffer. Each measured launch: Y = 5 x 5 / 1 = 25;
# head 4 x 25 = 100; tail R = 5 x 25 / (5 x 5 CTAs) = 5 per CTA over 296 x 5 CTAs = 7400;
# 7500 in all, bound 0 (every measured launch alike)
run "$TMP/l.json" 300 5
[ "$(grep -c 'buffer set' "$TMP/app.err")" = 9 ] || fail "launch sampling: $(grep -c 'buffer set' "$TMP/app.err") measured, expected 9"
[ "$(field "$TMP/l.json" 'd["kernels"][0]["instructions"][0]["requests"]')" = 7500 ] ||
  fail "launch sampling: requests $(field "$TMP/l.json" 'd["kernels"][0]["instructions"][0]')"
[ "$(field "$TMP/l.json" '(d["kernels"][0]["sampled_launches"], d["kernels"][0]["bound95"]["requests"])')" = "(9, 0)" ] ||
  fail "launch sampling: sampled_launches, bound"

# the report imports; coalcheck ./app takes the library itself (the default mode)
expect 0 "" "$COALCHECK" import "$TMP/e.json" -q
grep -qF "global: 15 requests, 60 sectors, ideal 60, excess 0" "$TMP/out" || fail "import: $(head -n4 "$TMP/out")"
COALCHECK_GPU_EXACT=1 expect 0 "" "$COALCHECK" --exact "$TMP/app" "$TMP/k.fatbin" _Z2k1Pfi 3 5
grep -qF "global: 15 requests, 60 sectors, ideal 60, excess 0" "$TMP/out" || fail "coalcheck ./app: $(head -n4 "$TMP/out")"
grep -qF "(inline counters)" "$TMP/err" || fail "coalcheck ./app: not the inline library"

# a process that loads no module writes no report: `timeout` under LD_PRELOAD must not
# overwrite the application's
rm -f "$TMP/t.json"
env COALCHECK_GPU_JSON="$TMP/t.json" LD_PRELOAD="$LIB" timeout 20 "$TMP/app" "$TMP/k.fatbin" \
  _Z2k1Pfi 3 5 2> /dev/null
[ "$(field "$TMP/t.json" 'd["kernels"][0]["instructions"][0]["requests"]')" = 75 ] ||
  fail "under timeout: the report was overwritten"

# no PTX in the fatbin (-gencode code=sm_90 only): loaded unchanged, said at exit
"$NVCC" -gencode arch=compute_90,code=sm_90 -fatbin -o "$TMP/elf.fatbin" "$TMP/k.cu" || fail "nvcc"
env COALCHECK_GPU_JSON="$TMP/n.json" LD_PRELOAD="$LIB" "$TMP/app" "$TMP/elf.fatbin" _Z2k1Pfi 1 1 \
  > /dev/null 2> "$TMP/n.err"
grep -q "fake: load image" "$TMP/n.err" || fail "no PTX: not loaded unchanged"
grep -qF "no PTX in the fatbin" "$TMP/n.err" || fail "no PTX: no note: $(cat "$TMP/n.err")"
grep -q "buffer none" "$TMP/n.err" || fail "no PTX: the launch was extended"
# execution sampling (COALCHECK_GPU_SAMPLE_EXEC, instrument.h opts.exec), its counts in
# the emulator (no GPU): gemv_rows, 4 CTAs of 256 threads, n = 1024: each of the loop's 8
# loads (unrolled by 4: x[j] and A[i n + j] each) runs 1024 / 4 = 256 times per warp, 32
# warps: 8192 requests; the store after the loop once per warp: 32. With E = 16 the loop
# sites count each thread's first 32 site executions, then about 1 in 16 (~500 warp
# executions per site): plane 0 + 16 x plane 1 within 10% of 8192 (2 standard deviations
# of a binomial sample of 500); the store, outside the loop, exactly 32.
if [ -n "${COALCHECK_PTXINST:-}" ]; then
  cp "$COALCHECK_SRC/examples/gemv/gemv.cu" "$TMP/gemv.cu"
  "$NVCC" -ptx -arch=sm_90 "$TMP/gemv.cu" -o "$TMP/g.ptx" || fail "nvcc -ptx gemv.cu"
  "$COALCHECK_PTXINST" -s 256 -G -T -E 16 "$TMP/g.ptx" "$TMP/gi.ptx" "$TMP/g.map" ||
    fail "coalcheck-ptxinst -E 16"
  bytes=$(head -n1 "$TMP/g.map" | awk '{print $8}')
  sed -n 2,100p "$COALCHECK_SRC/examples/gemv/rows.launch" | sed "1s|^gemv.cu|$TMP/gi.ptx|" \
    > "$TMP/gi.launch"
  "$COALCHECK" -q --launch "$TMP/gi.launch" --arg "cc=u64[$((bytes / 8))]:zero" \
    --dump "cc=$TMP/gi.bin" > /dev/null 2> "$TMP/gi.err" || fail "gemv -E 16: $(cat "$TMP/gi.err")"
  python3 - "$TMP/g.map" "$TMP/gi.bin" <<'PY' || fail "execution sampling's estimate"
import struct, sys
rows = [l.split() for l in open(sys.argv[1]) if not l.startswith("skip ")][1:]
b = open(sys.argv[2], "rb").read()
c = struct.unpack("<%dQ" % (len(b) // 8), b)
plane = len(rows) * 256 * 8
bad = 0
for i, r in enumerate(rows):
    if "gemv_rows" not in r[1]:
        continue
    req = sum(c[(i * 256 + g) * 8] + 16 * c[plane + (i * 256 + g) * 8] for g in range(256))
    want = 32 if r[4] == "store" else 8192 if req else 0
    ok = req == want if r[4] == "store" or not req else abs(req - want) <= 0.1 * want
    if not ok:
        print(f"site {i} ({r[3]} {r[4]}): {req} requests, expected {want}")
        bad += 1
sys.exit(bad > 0)
PY
fi
exit $((fails > 0))
