#!/bin/bash
# --html for a GPU run without per-warp records (src/view, src/cli/gpu_import.c): the page
# of `coalcheck import GPU.json --html FILE`, which is what `coalcheck --html FILE ./app`
# writes from the GPU's in-situ counters, checked in headless Chromium (tests/e2e/data/
# html_gpu.py); and the option in the executable mode. No GPU and no nvcc needed; without
# chromium or playwright, skipped after the checks that need no browser.
#
# The hand-made GPU report (as in gpu_backend.sh): kernel transpose, block 32 x 4 (4
# warps): LDG t.cu:5 reads consecutive floats: 4 requests, 16 sectors = ideal; STG t.cu:6
# writes a column: 4 requests, 128 sectors (32 per request), ideal 16. Totals: 8 requests,
# 144 sectors, ideal 32, excess 112. The store is at SASS offset 256: ptx_index 256 / 16
# = 16. Kernel reduce: one LDS t.cu:9, 2 requests of 32 lanes, 4 wavefronts, ideal 2
# (a 2-way conflict). t.cu's line 1 is the hostile comment.
. "$(dirname "$0")/data/common.bash"

cat > "$TMP/t.cu" <<'CU'
// </script><img src=x onerror=alert(1)>
__global__ void transpose(float *out, const float *in, int n)
{
  int x = threadIdx.x, y = threadIdx.y;
  float v = in[y * n + x];
  out[x * n + y] = v;
}
__global__ void reduce(float *a)
{ extern __shared__ float s[]; a[threadIdx.x] = s[2 * threadIdx.x]; }
CU
cat > "$TMP/g.json" <<EOF
{"tool":"coalcheck","backend":"gpu","device":"hand","model":"sm_90","kernels":[
{"name":"transpose(float*, float const*, int)","mangled":"_Z9transposePfPKfi","grid":[1,1,1],
 "block":[32,4,1],"launches":1,"outside_requests":0,"instructions":[
 {"sass_offset":128,"sass":"LDG.E R2, desc[UR4][R2.64]","space":"global","kind":"load",
  "size_bytes":4,"source":{"file":"$TMP/t.cu","line":5},"requests":4,"lanes":128,
  "bytes_requested":512,"sectors":16,"ideal_sectors":16,"stride":{"min":4,"max":4,"avg":4.0}},
 {"sass_offset":256,"sass":"STG.E desc[UR4][R4.64], R2","space":"global","kind":"store",
  "size_bytes":4,"source":{"file":"$TMP/t.cu","line":6},"requests":4,"lanes":128,
  "bytes_requested":512,"sectors":128,"ideal_sectors":16,
  "stride":{"min":4096,"max":4096,"avg":4096.0}}],"totals":{}},
{"name":"reduce(float*)","mangled":"_Z6reducePf","grid":[1,1,1],"block":[64,1,1],"launches":1,
 "outside_requests":0,"instructions":[
 {"sass_offset":64,"sass":"LDS R5, [R6]","space":"shared","kind":"load","size_bytes":4,
  "source":{"file":"$TMP/t.cu","line":9},"requests":2,"lanes":64,"bytes_requested":256,
  "wavefronts":4,"ideal_wavefronts":2,"ways":2,"stride":{"min":8,"max":8,"avg":8.0}}],
 "totals":{}}]}
EOF
expect 0 "" "$COALCHECK" import "$TMP/g.json" --html "$TMP/g.html" --json "$TMP/r.json" -q
[ -s "$TMP/g.html" ] || { echo "FAIL: no page"; exit 1; }
grep -qF '</script><img' "$TMP/g.html" && fail "the hostile line is in the page unescaped"
jcheck "$TMP/r.json" 'd["kernels"][0]["totals"]["sectors"] == 144 and d["kernels"][0]["totals"]["excess_sectors"] == 112'
# refusals: --html over the input; --html with a GPU trace's import and other options
expect 2 "would destroy an input" "$COALCHECK" import "$TMP/g.json" --html "$TMP/g.json" -q
G="$COALCHECK_SRC/tests/gpu/data/copy1.ccgpu"
expect 2 "takes only --trace, --html" "$COALCHECK" import "$G" --trace "$TMP/c.cctrace" \
  --html "$TMP/c.html" --top 2
[ -e "$TMP/c.html" ] && fail "a refused import left a page"
# GPU trace mode's records feed the views (what `--trace T --html F ./app` does as it
# converts): copy1.ccgpu (tests/e2e/gpu_trace.sh): kernel copy, grid 1, block 32, one
# record of LDG.E at slot 3 (copy.cu:7), lane l at 0x1000 + 4 l: under sm_90 1 request,
# 4 sectors 0x1000, 0x1020, 0x1040, 0x1060 holding lanes 0-7, 8-15, 16-23, 24-31.
expect 0 "" "$COALCHECK" import "$G" --trace "$TMP/c.cctrace" --html "$TMP/c.html" -q
[ -s "$TMP/c.cctrace" ] || fail "import --html wrote no trace"
# the executable mode takes --html (before the executable): no GPU here, so exit 10, not
# a usage error, and no page
COALCHECK_GPU_PROBE=none expect 10 "no usable CUDA GPU" "$COALCHECK" --html "$TMP/a.html" \
  /bin/true
[ -e "$TMP/a.html" ] && fail "a run that did not start left a page"
"$COALCHECK" --help /bin/true 2>&1 | grep -q -- "--html" || fail "--help ./app lacks --html"

need_browser
timeout 60 python3 "$DATA/html_gpu.py" "$TMP/g.html" "$TMP/r.json" "$CHROMIUM" "$TMP/c.html" ||
  fail "browser checks"
[ "$fails" -eq 0 ] || exit 1
echo "ok"
