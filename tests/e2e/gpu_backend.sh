#!/bin/bash
# The GPU backend behind the coalcheck command, where no GPU is needed: the no-GPU answers
# (exit 10), executable INPUTs, the launch plan of --backend gpu, and `coalcheck import`
# of a GPU report (hand-made, and the one saved from the H200). Figures derived by hand
# in the comments. See docs/usage.md, "GPU backend".
. "$(dirname "$0")/data/common.bash"
K="$DATA/kernels.ptx"
SCALE=(--kernel scale --grid 1 --block 32 --arg 'out=f32[4]:zero' --arg 'in=f32[n]:iota'
       --arg n=4 --arg a=2)

# ---- no GPU: exit 10 ------------------------------------------------------------------
# forced (COALCHECK_GPU_PROBE=none), so that the check holds on a GPU machine too
COALCHECK_GPU_PROBE=none expect 10 "no usable CUDA GPU" "$COALCHECK" /bin/true
grep -qF "emulator cannot run executables yet" "$TMP/err" ||
  fail "the executable's no-GPU message does not say the emulator cannot run it"
COALCHECK_GPU_PROBE=none expect 10 "no usable CUDA GPU" "$COALCHECK" --backend gpu "$K" \
  "${SCALE[@]}"
COALCHECK_GPU_PROBE=none expect 10 "no usable CUDA GPU" "$COALCHECK" --backend=gpu \
  --launch "$COALCHECK_SRC/examples/transpose/naive.launch"
# really without a driver (this CI machine): the probe's own answer
if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1'; then
  expect 10 "libcuda.so.1" "$COALCHECK" --backend gpu "$K" "${SCALE[@]}"
  expect 10 "no usable CUDA GPU" "$COALCHECK" -q /bin/true --some-app-option
fi
# the default backend of a .ptx stays the emulator; --backend emu says so explicitly
COALCHECK_GPU_PROBE=none expect 0 "" "$COALCHECK" "$K" "${SCALE[@]}"
grep -q '^  emulated ' "$TMP/out" || fail "the default backend did not emulate"
COALCHECK_GPU_PROBE=none expect 0 "" "$COALCHECK" --backend emu "$K" "${SCALE[@]}"

# ---- usage errors ----------------------------------------------------------------------
expect 2 "emulator cannot run executables yet" "$COALCHECK" --backend emu /bin/true
expect 2 "--backend" "$COALCHECK" --backend cpu "$K" "${SCALE[@]}"
expect 2 "--launch-skip" "$COALCHECK" --launch-skip x /bin/true
expect 2 "--launch-count" "$COALCHECK" --launch-count -1 /bin/true
expect 2 "does not compile at position 1" "$COALCHECK" --kernel-name 'regex:(' /bin/true
expect 2 "--launch-count 0" "$COALCHECK" --launch-count 0 /bin/true
expect 2 "--arch cc1.0" "$COALCHECK" --backend gpu --arch cc1.0 "$K" "${SCALE[@]}"

# ---- the launch plan, written without a GPU --------------------------------------------
# scale(out, in, n, a): n = 4 -> 04000000, a = 2.0f = 0x40000000 -> 00000040 (little-endian)
COALCHECK_GPU_PLAN="$TMP/plan" expect 0 "" "$COALCHECK" --backend gpu "$K" "${SCALE[@]}" -q
[ -s "$TMP/plan/kernel.ptx" ] || fail "no kernel.ptx in the plan"
grep -qx 'kernel scale' "$TMP/plan/plan" || fail "plan: no 'kernel scale'"
grep -qx 'grid 1 1 1' "$TMP/plan/plan" || fail "plan: no 'grid 1 1 1'"
grep -qx 'block 32 1 1' "$TMP/plan/plan" || fail "plan: no 'block 32 1 1'"
grep -qx 'param 2 scalar 04000000' "$TMP/plan/plan" || fail "plan: n is not 04000000"
grep -qx 'param 3 scalar 00000040' "$TMP/plan/plan" || fail "plan: a is not 00000040"
grep -Eqx 'param 1 buffer [0-9a-f]{16} in=f32\[4\]:iota' "$TMP/plan/plan" ||
  fail "plan: in is not 'buffer HASH in=f32[4]:iota'"
# the launcher refills the buffers and checks the hashes before it needs a GPU: here it
# gets as far as the driver (exit 10); a changed hash is refused (exit 3)
LAUNCH="$(dirname "$COALCHECK")/src/gpu/coalcheck-gpu-launch"
if [ -x "$LAUNCH" ] && ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1'; then
  "$LAUNCH" "$TMP/plan/plan" 2>"$TMP/lerr"
  [ $? = 10 ] || fail "coalcheck-gpu-launch on the plan: not exit 10: $(cat "$TMP/lerr")"
  sed -E 's/^(param 1 buffer )[0-9a-f]{16}/\10000000000000000/' "$TMP/plan/plan" > "$TMP/plan/bad"
  "$LAUNCH" "$TMP/plan/bad" 2>"$TMP/lerr"
  [ $? = 3 ] || fail "a wrong buffer hash was not refused with exit 3"
  grep -q "differ from the emulator" "$TMP/lerr" || fail "hash message: $(cat "$TMP/lerr")"
fi
# a buffer with a LAYOUT: the plan keeps it, and the launcher's fill lays the bytes out as
# the emulator's did (the same hash: it gets as far as the driver, exit 10); without the
# layout the hash differs (iota 0 1 2 3 in pairs of 8-byte structures, block 2: 0 2 1 3)
LSCALE=(--kernel scale --grid 1 --block 32 --arg 'out=f32[4]:zero'
        --arg 'in=f32[n]:soa(8,0,4,block=2):iota' --arg n=4 --arg a=2)
COALCHECK_GPU_PLAN="$TMP/lplan" expect 0 "" "$COALCHECK" --backend gpu "$K" "${LSCALE[@]}" -q
grep -Eqx 'param 1 buffer [0-9a-f]{16} in=f32\[4\]:soa\(8,0,4,block=2\):iota' "$TMP/lplan/plan" ||
  fail "plan: in lost its layout"
if [ -x "$LAUNCH" ] && ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1'; then
  "$LAUNCH" "$TMP/lplan/plan" 2>"$TMP/lerr"
  [ $? = 10 ] || fail "coalcheck-gpu-launch on the laid-out plan: not exit 10: $(cat "$TMP/lerr")"
  sed -E 's/:soa\([0-9a-z,=]*\):/:/' "$TMP/lplan/plan" > "$TMP/lplan/bad"
  "$LAUNCH" "$TMP/lplan/bad" 2>"$TMP/lerr"
  [ $? = 3 ] || fail "the plan without its layout was not refused (exit 3)"
fi
# a buffer at offset(4) (docs/usage.md): the plan keeps the offset; the hash is of the
# buffer's own bytes (iota 0..3, not the 4 zero bytes before it), so the launcher's fill
# matches the emulator's (exit 10 at the driver)
OSCALE=(--kernel scale --grid 1 --block 32 --arg 'out=f32[4]:zero'
        --arg 'in=f32[n]:offset(4):iota' --arg n=4 --arg a=2)
COALCHECK_GPU_PLAN="$TMP/oplan" expect 0 "" "$COALCHECK" --backend gpu "$K" "${OSCALE[@]}" -q
grep -Eqx 'param 1 buffer [0-9a-f]{16} in=f32\[4\]:offset\(4\):iota' "$TMP/oplan/plan" ||
  fail "plan: in lost its offset"
[ "$(grep '^param 1' "$TMP/oplan/plan" | cut -d' ' -f4)" = "$(grep '^param 1' "$TMP/plan/plan" | cut -d' ' -f4)" ] ||
  fail "plan: the offset buffer's hash is not the plain buffer's"
if [ -x "$LAUNCH" ] && ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1'; then
  "$LAUNCH" "$TMP/oplan/plan" 2>"$TMP/lerr"
  [ $? = 10 ] || fail "coalcheck-gpu-launch on the offset plan: not exit 10: $(cat "$TMP/lerr")"
fi

# ---- coalcheck import: a hand-made GPU report -------------------------------------------
# kernel transpose, block 32x4 (4 warps): LDG t.cu:5 reads consecutive floats: 4 requests,
# 16 sectors (4 per request) = ideal; STG t.cu:6 writes a column: 4 requests, 128 sectors
# (32 per request), ideal 16. Totals: 8 requests, 144 sectors, ideal 32, excess 112;
# 1,024 bytes requested of 144 x 32 = 4,608 transferred; no lanes share bytes (strides >=
# 4 = size), so 1,024 distinct: efficiency 1024 / 4608 = 22.2%. Worst first: the store.
cat > "$TMP/g.json" <<'EOF'
{"tool":"coalcheck","backend":"gpu","device":"hand","model":"sm_90","kernels":[
{"name":"transpose(float*, float const*, int)","mangled":"_Z9transposePfPKfi","grid":[1,1,1],
 "block":[32,4,1],"launches":1,"outside_requests":0,"instructions":[
 {"sass_offset":128,"sass":"LDG.E R2, desc[UR4][R2.64]","space":"global","kind":"load",
  "size_bytes":4,"source":{"file":"t.cu","line":5},"requests":4,"lanes":128,
  "bytes_requested":512,"sectors":16,"ideal_sectors":16,"stride":{"min":4,"max":4,"avg":4.0}},
 {"sass_offset":256,"sass":"STG.E desc[UR4][R4.64], R2","space":"global","kind":"store",
  "size_bytes":4,"source":{"file":"t.cu","line":6},"requests":4,"lanes":128,
  "bytes_requested":512,"sectors":128,"ideal_sectors":16,
  "stride":{"min":4096,"max":4096,"avg":4096.0}}],"totals":{}}]}
EOF
expect 0 "" "$COALCHECK" import "$TMP/g.json"
grep -qF "kernel transpose  (_Z9transposePfPKfi)" "$TMP/out" || fail "import: kernel line"
grep -qF "global: 8 requests, 144 sectors, ideal 32, excess 112" "$TMP/out" ||
  fail "import: totals: $(grep global: "$TMP/out")"
grep -qF "1,024 bytes requested, 1,024 distinct, 4,608 transferred: efficiency 22.2%" \
  "$TMP/out" || fail "import: bytes"
[ "$(grep -c '^     ptx ' "$TMP/out")" = 2 ] || fail "import: not 2 rows"
grep -m1 '^     ptx ' "$TMP/out" | grep -qF "STG.E desc[UR4][R4.64], R2" ||
  fail "import: the store is not the worst row"
grep -q '^  emulated ' "$TMP/out" && fail "import: an 'emulated' line for a GPU run"
# the GPU keeps no footprint: allStr is unknown, not 0 ("all coalescable" would be a guess)
grep -qF "footprint stride not measured on the GPU" "$TMP/out" || fail "import: footprint line"
grep -q "footprint stride [0-9]" "$TMP/out" && fail "import: a measured footprint for a GPU run"
expect 0 "" "$COALCHECK" import --top 1 "$TMP/g.json" --json "$TMP/r.json"
[ "$(grep -c '^     ptx ' "$TMP/out")" = 1 ] || fail "import --top 1: not 1 row"
grep -Eq '"ptx":[[:space:]]*"STG\.E desc\[UR4\]\[R4\.64\], R2"' "$TMP/r.json" ||
  fail "import --json: the SASS text is not the ptx field"
grep -Eq '"sectors":[[:space:]]*144,' "$TMP/r.json" || fail "import --json: total sectors"
grep -Eq '"all_stride":[[:space:]]*null' "$TMP/r.json" || fail "import --json: all_stride not null"

# the report saved on the H200 (bench/results/gpu-check-2026-11-22.md: 2 launches of each
# kernel of tests/gpu/apps/gpuapps.cu). transpose_naive, 4096x4096 floats: per launch
# 16,777,216 / 32 = 524,288 load and 524,288 store requests; loads 4 sectors each
# (2,097,152), stores one sector per lane, 32 each (16,777,216); ideal 4 each. Two launches:
# 2,097,152 requests, 37,748,736 sectors, ideal 8,388,608, excess 29,360,128.
SAVED="$COALCHECK_SRC/bench/results/gpu-check-2026-11-22-coalcheck.json"
expect 0 "" "$COALCHECK" import "$SAVED"
grep -A2 -F "kernel transpose_naive  (_Z15transpose_naivePfPKfi)" "$TMP/out" |
  grep -qF "global: 2,097,152 requests, 37,748,736 sectors, ideal 8,388,608, excess 29,360,128" ||
  fail "import of the saved report: transpose_naive totals"

# import errors
expect 3 "cannot read" "$COALCHECK" import "$TMP/none.json"
COALCHECK_GPU_PROBE=none "$COALCHECK" "$K" "${SCALE[@]}" -q --json "$TMP/emu.json" >/dev/null
expect 3 "'backend'" "$COALCHECK" import "$TMP/emu.json"
expect 2 "no input" "$COALCHECK" import
expect 2 "is a second one" "$COALCHECK" import "$TMP/g.json" extra
expect 2 "import takes only" "$COALCHECK" import --kernel-name x "$TMP/g.json"
expect 2 "import takes only" "$COALCHECK" import --exact "$TMP/g.json"

# the fast mode's estimates (issue 14): 11 launches, 6 measured; the library's bounds
# (0.0816 of the requests, sectors unknown) reach the text report as "±8.2%" / "±?" and
# the JSON (schema 4) as `sampling` and per instruction `bound95`
sed -e 's/"launches":1,/"launches":11,"sampled_launches":6,"bound95":{"requests":0.0816,"sectors":null},/' \
    -e 's/"requests":4,"lanes":128,/"requests":4,"lanes":128,"bound95":{"requests":0.05,"sectors":0.05},/' \
    "$TMP/g.json" > "$TMP/gs.json"
expect 0 "" "$COALCHECK" import "$TMP/gs.json" --json "$TMP/rs.json"
grep -qF "sampled: 6 of 11 launches measured, the rest extrapolated: requests ±8.2%, sectors ±?" \
  "$TMP/out" || fail "import: no sampling line: $(grep -n sampled "$TMP/out")"
jcheck "$TMP/rs.json" "d['schema_version'] == 5 and d['kernels'][0]['sampling']['launches'] == 11 and d['kernels'][0]['sampling']['sampled_launches'] == 6 and d['kernels'][0]['sampling']['bound95']['sectors'] is None and abs(d['kernels'][0]['sampling']['bound95']['requests'] - 0.0816) < 1e-9 and all(i['bound95']['requests'] == 0.05 for i in d['kernels'][0]['instructions'])"
# every launch measured (the library's exact mode, or an older library): no sampling
expect 0 "" "$COALCHECK" import "$TMP/g.json" --json "$TMP/re.json"
grep -q "sampled:" "$TMP/out" && fail "import: a sampling line for an exact report"
jcheck "$TMP/re.json" "d['kernels'][0]['sampling'] is None and all(i['bound95'] == {'requests': 0, 'sectors': 0} for i in d['kernels'][0]['instructions'])"

# ---- a stand-in driver and library: the executable mode and --backend gpu end to end ----
# A fake libcuda.so.1 (only what the probe calls) on LD_LIBRARY_PATH, a fake "injection
# library" whose destructor writes the hand-made report to $COALCHECK_GPU_JSON, and a fake
# launcher script: everything but the GPU itself runs. Like the real one, the fake library
# needs libsanitizer-public.so (DT_NEEDED, no RUNPATH: an installed copy on another
# machine), which only a fake toolkit holds ($CUDA_HOME/compute-sanitizer/): coalcheck
# must find it there and hand it to the application (before, the app died with 127).
CC=$(command -v cc || command -v gcc)
if [ -n "$CC" ]; then
  mkdir -p "$TMP/drv" "$TMP/nodev" "$TMP/cuda/compute-sanitizer"
  export CUDA_HOME="$TMP/cuda"
  echo 'int sanitizer_fake(void) { return 0; }' > "$TMP/san.c"
  "$CC" -shared -fPIC -Wl,-soname,libsanitizer-public.so -o \
    "$TMP/cuda/compute-sanitizer/libsanitizer-public.so" "$TMP/san.c" || fail "fake sanitizer"
  printf 'int cuInit(unsigned f) { (void)f; return 0; }\nint cuDeviceGetCount(int *n) { *n = 1; return 0; }\n' > "$TMP/drv.c"
  printf 'int cuInit(unsigned f) { (void)f; return 100; }\nint cuDeviceGetCount(int *n) { *n = 0; return 0; }\n' > "$TMP/nodev.c"
  cat > "$TMP/fakelib.c" <<EOF2
#include <stdio.h>
#include <stdlib.h>
int sanitizer_fake(void);
__attribute__((destructor)) static void out(void)
{
  const char *p = sanitizer_fake() ? NULL : getenv("COALCHECK_GPU_JSON");
  FILE *in = fopen("$TMP/g.json", "r"), *o = p ? fopen(p, "w") : NULL;
  int c;
  while (in && o && (c = fgetc(in)) != EOF) fputc(c, o);
  if (in) fclose(in);
  if (o) fclose(o);
}
EOF2
  # the application: writes its arguments to app.args, exits 3 through exit()
  printf '#include <stdio.h>\n#include <stdlib.h>\nint main(int c, char **v) { FILE *f = fopen("%s/app.args", "w"); for (int i = 1; i < c; i++) fprintf(f, "%%s\\n", v[i]); fclose(f); exit(3); }\n' "$TMP" > "$TMP/app.c"
  "$CC" -o "$TMP/app" "$TMP/app.c" &&
    "$CC" -shared -fPIC -o "$TMP/drv/libcuda.so.1" "$TMP/drv.c" &&
    "$CC" -shared -fPIC -o "$TMP/nodev/libcuda.so.1" "$TMP/nodev.c" &&
    "$CC" -shared -fPIC -o "$TMP/libfake_gpu.so" "$TMP/fakelib.c" \
      -L"$TMP/cuda/compute-sanitizer" -lsanitizer-public || fail "cannot build the fakes"
  # cuInit fails (100 = CUDA_ERROR_NO_DEVICE): exit 10 naming the code
  LD_LIBRARY_PATH="$TMP/nodev" expect 10 "cuInit failed with CUresult 100" "$COALCHECK" /bin/true
  # a driver, but no library found: exit 8 naming the variable
  LD_LIBRARY_PATH="$TMP/drv" COALCHECK_GPU_LIB="$TMP/none.so" expect 8 "COALCHECK_GPU_LIB" \
    "$COALCHECK" --gpu-mode sanitizer /bin/true
  # the application exits 3 after its "kernels": the report is printed (the hand-made
  # figures above) and coalcheck exits 3; the words after it are the app's own
  LD_LIBRARY_PATH="$TMP/drv" COALCHECK_GPU_LIB="$TMP/libfake_gpu.so" expect 3 "exited with status 3" \
    "$COALCHECK" --gpu-mode sanitizer -q --top 1 --gpu-json "$TMP/kept.json" "$TMP/app" --top 5 -q
  [ "$(tr '\n' ' ' < "$TMP/app.args")" = "--top 5 -q " ] ||
    fail "the app's arguments: $(cat "$TMP/app.args")"
  grep -qF "global: 8 requests, 144 sectors, ideal 32, excess 112" "$TMP/out" ||
    fail "executable mode: no report: $(head -n3 "$TMP/out")"
  [ "$(grep -c '^     ptx ' "$TMP/out")" = 1 ] || fail "executable mode: --top 1 not applied"
  grep -q hint "$TMP/err" && fail "executable mode: a --help hint for the app's status"
  [ -s "$TMP/kept.json" ] || fail "--gpu-json: the library's report was not kept"
  # status 0, --json of the imported report; the progress output names the sanitizer
  # library taken and where from
  LD_LIBRARY_PATH="$TMP/drv" COALCHECK_GPU_LIB="$TMP/libfake_gpu.so" expect 0 "" \
    "$COALCHECK" --gpu-mode sanitizer --json "$TMP/app.json" /bin/true
  grep -Eq '"sectors":[[:space:]]*144,' "$TMP/app.json" || fail "executable mode: --json"
  grep -qF "with $TMP/cuda/compute-sanitizer/libsanitizer-public.so (from \$CUDA_HOME)" \
    "$TMP/err" || fail "progress output does not name the sanitizer library: $(cat "$TMP/err")"
  # none found: every folder tried is named, and what to do (unless this machine's
  # default toolkit has one)
  if [ ! -e /usr/local/cuda/compute-sanitizer/libsanitizer-public.so ]; then
    mkdir -p "$TMP/nobin"
    expect 8 "set CUDA_HOME" env CUDA_HOME="$TMP/nocuda" PATH="$TMP/nobin" \
      LD_LIBRARY_PATH="$TMP/drv" COALCHECK_GPU_LIB="$TMP/libfake_gpu.so" "$COALCHECK" --gpu-mode sanitizer /bin/true
    for where in "$TMP/nocuda/compute-sanitizer (\$CUDA_HOME)" "no nvcc on PATH" \
                 "/usr/local/cuda/compute-sanitizer (the default)" "$TMP/drv (LD_LIBRARY_PATH)"; do
      grep -qF "$where" "$TMP/err" || fail "the not-found message lacks '$where': $(cat "$TMP/err")"
    done
  fi
  # --exact reaches the library as COALCHECK_GPU_EXACT=1 (the app writes what it sees)
  printf '#include <stdio.h>\n#include <stdlib.h>\nint main(void) { FILE *f = fopen("%s/env.txt", "w"); const char *e = getenv("COALCHECK_GPU_EXACT"); fprintf(f, "%%s\\n", e ? e : "unset"); fclose(f); return 0; }\n' "$TMP" > "$TMP/envapp.c"
  "$CC" -o "$TMP/envapp" "$TMP/envapp.c" || fail "cannot build envapp"
  LD_LIBRARY_PATH="$TMP/drv" COALCHECK_GPU_LIB="$TMP/libfake_gpu.so" expect 0 "" \
    "$COALCHECK" --gpu-mode sanitizer -q --exact "$TMP/envapp"
  [ "$(cat "$TMP/env.txt")" = 1 ] || fail "--exact: the library saw '$(cat "$TMP/env.txt")'"
  LD_LIBRARY_PATH="$TMP/drv" COALCHECK_GPU_LIB="$TMP/libfake_gpu.so" expect 0 "" \
    "$COALCHECK" --gpu-mode sanitizer -q "$TMP/envapp"
  [ "$(cat "$TMP/env.txt")" = unset ] || fail "no --exact: the library saw '$(cat "$TMP/env.txt")'"
  # an app that loads no CUDA module leaves no report (the real library writes none): 8
  LD_LIBRARY_PATH="$TMP/drv" COALCHECK_GPU_LIB="$TMP/drv/libcuda.so.1" expect 8 \
    "wrote no GPU report" "$COALCHECK" --gpu-mode sanitizer -q /bin/true
  # the default for executables: inline counters (libcoalcheck_inline.so, no Compute
  # Sanitizer: the fake needs no libsanitizer-public.so), named in the progress output
  "$CC" -shared -fPIC -o "$TMP/libfake_inline.so" "$TMP/fakelib.c" "$TMP/san.c" ||
    fail "cannot build the inline fake"
  LD_LIBRARY_PATH="$TMP/drv" COALCHECK_GPU_INLINE_LIB="$TMP/libfake_inline.so" \
    COALCHECK_GPU_LIB="$TMP/none.so" expect 0 "" "$COALCHECK" --json "$TMP/inl.json" /bin/true
  grep -Eq '"sectors":[[:space:]]*144,' "$TMP/inl.json" || fail "inline mode: --json"
  grep -qF "libfake_inline.so (inline counters)" "$TMP/err" ||
    fail "inline mode: the progress output does not name the library: $(cat "$TMP/err")"
  LD_LIBRARY_PATH="$TMP/drv" COALCHECK_GPU_INLINE_LIB="$TMP/none.so" expect 8 \
    "COALCHECK_GPU_INLINE_LIB" "$COALCHECK" /bin/true
  # options only the Sanitizer library implements: taken there by default, refused inline
  LD_LIBRARY_PATH="$TMP/drv" COALCHECK_GPU_INLINE_LIB="$TMP/none.so" \
    COALCHECK_GPU_LIB="$TMP/libfake_gpu.so" expect 0 "" "$COALCHECK" -q --spaces global /bin/true
  expect 2 "--trace needs --gpu-mode sanitizer" "$COALCHECK" --gpu-mode inline \
    --trace "$TMP/t.cctrace" /bin/true
  expect 2 "bad value 'x' for --gpu-mode" "$COALCHECK" --gpu-mode x /bin/true
  # --backend gpu with a kernel: the fake launcher copies the report where it is told
  printf '#!/bin/sh\ncp "%s" "$COALCHECK_GPU_JSON"\n' "$TMP/g.json" > "$TMP/launch.sh"
  chmod +x "$TMP/launch.sh"
  LD_LIBRARY_PATH="$TMP/drv" COALCHECK_GPU_LIB="$TMP/libfake_gpu.so" \
    COALCHECK_GPU_LAUNCH="$TMP/launch.sh" expect 0 "" "$COALCHECK" --backend gpu "$K" "${SCALE[@]}" -q
  grep -qF "global: 8 requests, 144 sectors" "$TMP/out" || fail "--backend gpu: no report"
  # the launch fails: exit 8 with the launcher's status
  printf '#!/bin/sh\nexit 3\n' > "$TMP/launch.sh"
  LD_LIBRARY_PATH="$TMP/drv" COALCHECK_GPU_LIB="$TMP/libfake_gpu.so" \
    COALCHECK_GPU_LAUNCH="$TMP/launch.sh" expect 8 "exit status 3" "$COALCHECK" --backend gpu \
    "$K" "${SCALE[@]}" -q
fi

finish
