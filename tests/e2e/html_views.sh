#!/bin/bash
# --html (src/view): the outputs, the JSON's dwarp, and the page in a real browser,
# headless Chromium driven by Playwright for Python (tests/e2e/data/html_views.py and
# html_fix.py). Skipped without nvcc; without chromium or playwright, skipped after the
# checks that need no browser.
#
# The kernel (hostile.cu below) is the naive transpose of a 64 x 64 float matrix, 32 x 8
# threads, grid 2 x 8 = 16 CTAs of 8 warps, with a hostile comment on line 1 and one more
# store on line 8 run only by warp 7 (threadIdx.y == 7) of the CTAs with blockIdx.y == 7.
# Hand derivation:
# - the store on line 6, out[x*n + y]: each warp is 32 x at one y, 4n = 256 bytes apart:
#   32 sectors per request, 128 warps -> 128 requests, 4096 sectors; in the operation view
#   its 32 lanes fall in 32 distinct 128-byte lines.
# - dWarp (EuroVis 2013 Eq. 1-5, docs/views.md) against warp 0 of CTA (0,0), whose ops are
#   ld, st: every warp without the extra store has the same two ops, all lanes active,
#   the same sector counts: 0. Warp 7 of CTAs (0,7) and (1,7) has a third op, compared
#   with no op: d_ins 1 + d_thrd 32/32 + d_glob 4 sectors x 32 B / 1024 = 2.125; mean over
#   3 ops: 0.708333. They are the only outliers; the kernel's mean is 2 x 0.708333 / 128.
# - the same run recorded and replayed by `report --arch cc1.0,sm_90`: the same dWarp; the
#   store's requests: 128 under sm_90 (one per warp), 256 under cc1.0 (one per half-warp).
. "$(dirname "$0")/data/common.bash"
[ -n "$(find_nvcc)" ] || { echo "skip: nvcc not found"; exit 77; }

cat >"$TMP/hostile.cu" <<'CU'
// </script><img src=x onerror=alert(1)>
__global__ void naive(float *out, const float *in, int n)
{
  int x = blockIdx.x * 32 + threadIdx.x;
  int y = blockIdx.y * 8 + threadIdx.y;
  out[x * n + y] = in[y * n + x];
  if (blockIdx.y == 7 && threadIdx.y == 7)
    out[y * n + x] = 2.0f;
}
CU
expect 0 "" "$COALCHECK" "$TMP/hostile.cu" --grid 2,8 --block 32,8 --arg 'out=f32[n*n]:zero' \
  --arg 'in=f32[n*n]:iota' --arg n=64 --html "$TMP/v.html" --json "$TMP/v.json" -q
[ -s "$TMP/v.html" ] || { echo "FAIL: no page"; exit 1; }
# the page is one file: nothing it could load from elsewhere
grep -qiE '<(link|iframe|object|embed)\b|src=["'"'"']?(https?:)?//' "$TMP/v.html" &&
  fail "the page names an external resource"
grep -qF '</script><img' "$TMP/v.html" && fail "the hostile line is in the page unescaped"
jcheck "$TMP/v.json" 'd["kernels"][0]["dwarp"]["representative"] == {"cta": [0, 0, 0], "warp": 0}'
jcheck "$TMP/v.json" 'sorted((s["cta"], s["warp"], round(s["dwarp"], 6)) for s in d["kernels"][0]["dwarp"]["sampled"] if s["role"] == "outlier") == [([0, 7, 0], 7, 0.708333), ([1, 7, 0], 7, 0.708333)]'
jcheck "$TMP/v.json" 'abs(d["kernels"][0]["dwarp"]["mean"] - 2 * 2.125 / 3 / 128) < 1e-9'
# the same run recorded, then replayed by `report` under two models (the switch)
expect 0 "" "$COALCHECK" record "$TMP/hostile.cu" --grid 2,8 --block 32,8 \
  --arg 'out=f32[n*n]:zero' --arg 'in=f32[n*n]:iota' --arg n=64 -o "$TMP/t.cctrace" -q
expect 0 "" "$COALCHECK" report "$TMP/t.cctrace" --arch cc1.0,sm_90 --html "$TMP/r.html" \
  --json "$TMP/r.json" -q
jcheck "$TMP/r.json" 'sorted((s["cta"], s["warp"], round(s["dwarp"], 6)) for s in d["kernels"][0]["dwarp"]["sampled"] if s["role"] == "outlier") == [([0, 7, 0], 7, 0.708333), ([1, 7, 0], 7, 0.708333)]'
# outputs: --html on an input is refused before the run; an unwritable one fails at once
# (exit 7) and leaves nothing
expect 2 "--html" "$COALCHECK" "$TMP/hostile.cu" --grid 2,8 --block 32,8 \
  --arg 'out=f32[n*n]:zero' --arg 'in=f32[n*n]:iota' --arg n=64 --html "$TMP/hostile.cu" -q
expect 7 "" "$COALCHECK" "$TMP/hostile.cu" --grid 2,8 --block 32,8 \
  --arg 'out=f32[n*n]:zero' --arg 'in=f32[n*n]:iota' --arg n=64 --html "$TMP/no/such/v.html" -q
[ -e "$TMP/no" ] && fail "an unwritable --html left something"

# the browser half
need_browser
timeout 60 python3 "$DATA/html_views.py" "$TMP/v.html" "$TMP/v.json" "$CHROMIUM" "$TMP/r.html" \
  "$TMP/r.json" || fail "browser checks"
# fix --html: the bundled naive transpose at n = 64 (grid 2 x 8 = 16 CTAs); the fix stages
# it through a 32 x 32 tile, grid (n/32, n/32) = 2 x 2 = 4 CTAs (examples/transpose); both
# views side by side. Needs the CUDA C front end (libclang): skipped in a build without it.
"$COALCHECK" fix --launch "$COALCHECK_SRC/examples/transpose/naive.launch" --arg n=64 \
  --grid 2,8 -o "$TMP/fix" --html "$TMP/f.html" -q >"$TMP/fix.out" 2>&1
rc=$?
if [ "$rc" -eq 8 ]; then
  echo "note: fix --html not checked: no CUDA C front end in this build"
elif [ "$rc" -ne 0 ]; then
  fail "fix --html exited $rc"; cat "$TMP/fix.out"
else
  timeout 60 python3 "$DATA/html_fix.py" "$TMP/f.html" "$CHROMIUM" 16 4 || fail "fix page checks"
fi
[ "$fails" -eq 0 ] || exit 1
echo "ok"
