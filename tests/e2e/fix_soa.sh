#!/bin/bash
# `coalcheck fix --transform soa` (issue 10, item 4): arrays of structures laid out member
# by member in blocks of 32 elements. Needs nvcc (CUDA C inputs) and libclang; skipped
# without nvcc.
#
# Expected figures, derived by hand (examples/aos_soa/aos_soa.cu, examples/soa/soa.cu):
# - update_aos, 65536 particles {x,y,z} (12 bytes), 2048 warps, 6 loads and 3 stores per
#   warp of 12 sectors each: 9 * 2048 * 12 = 221,184 before; after, each a run of 32
#   floats (4 sectors): 9 * 2048 * 4 = 73,728.
# - step, 16384 bodies of 24 bytes: 73,728 -> 18,432; knn_dist, 16384 points of 16 bytes:
#   36,864 -> 12,288 (both derived in soa.cu).
# DIR's launch gives each converted buffer the layout soa(...) (docs/usage.md), so its own
# dumps compare with the original's; the outputs are also compared as a program of one's
# own would run it: the inputs given as files (overriding the launch's --arg, layout
# included), converted to the blocked layout by DIR's header (compiled with gcc), the
# result converted back, then compared with cmp against the original's dump.
. "$(dirname "$0")/data/common.bash"
[ -n "$(find_nvcc)" ] || { echo "skip: nvcc not found"; exit 77; }
EX="$COALCHECK_SRC/examples"

# ---- update_aos: both structure parameters, through DIR's own files --------------------------
expect 0 "" "$COALCHECK" fix --transform soa --launch "$EX/aos_soa/aos.launch" -o "$TMP/aos" -q \
  --json "$TMP/aos.json"
for f in aos_soa.cu update_aos.launch fix.diff update_aos_soa_layout.h; do
  [ -s "$TMP/aos/$f" ] || fail "aos: $f not written"
done
jcheck "$TMP/aos.json" 'd["verified"] is True and d["transform"] == "soa"'
jcheck "$TMP/aos.json" 'd["before"]["kernels"][0]["totals"]["sectors"] == 221184'
jcheck "$TMP/aos.json" 'd["after"]["kernels"][0]["totals"]["sectors"] == 73728'
jcheck "$TMP/aos.json" '"pos (struct particle, 12 bytes) and vel" in d["what"]'
jcheck "$TMP/aos.json" '"update_aos_soa_layout.h" in d["launch_note"]'
# the kernel keeps its line numbers: line 22 (pos[i].x += vel[i].x * dt) has its two loads
# and its store at 2048 * 4 sectors each after
line=$(grep -n 'pos\[i\].x += vel\[i\].x \* dt' "$EX/aos_soa/aos_soa.cu" | cut -d: -f1)
jcheck "$TMP/aos.json" "sorted(i['sectors'] for i in d['after']['kernels'][0]['instructions'] if i['source']['line'] == $line and i['space'] == 'global') == [8192, 8192, 8192]"
# only the accesses changed in the kernel, the helpers were added before it
grep -q '^-    pos\[i\].x += vel\[i\].x \* dt;$' "$TMP/aos/fix.diff" || fail "aos: diff lacks the access"
grep -q '^+    (\*__cc_soa_pos_x(pos, i)) += (\*__cc_soa_vel_x(vel, i)) \* dt;$' "$TMP/aos/fix.diff" ||
  fail "aos: diff lacks the rewritten access"
[ "$(grep -c '^-[^-]' "$TMP/aos/fix.diff")" = 3 ] || fail "aos: the diff removes more than the 3 access lines"

# inputs as files, 3 * 65536 floats each; DIR's header converts them
python3 - "$TMP" <<'PY'
import random, struct, sys
r = random.Random(5)
for name in ("pos", "vel"):
    with open(f"{sys.argv[1]}/{name}.bin", "wb") as f:
        f.write(struct.pack("<196608f", *[r.random() for _ in range(196608)]))
PY
cat > "$TMP/conv.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "update_aos_soa_layout.h"
/* conv to|from pos|vel IN OUT: n = 65536 particles of 12 bytes */
int main(int argc, char **argv)
{
  static unsigned char in[65536 * 12], out[65536 * 12];
  FILE *f = fopen(argv[3], "rb");
  int to = strcmp(argv[1], "to") == 0, pos = strcmp(argv[2], "pos") == 0, rc;
  if (argc != 5 || !f || fread(in, 1, sizeof in, f) != sizeof in) return 2;
  fclose(f);
  if (pos)
    rc = to ? update_aos_pos_to_blocked(out, in, 65536) : update_aos_pos_from_blocked(out, in, 65536);
  else
    rc = to ? update_aos_vel_to_blocked(out, in, 65536) : update_aos_vel_from_blocked(out, in, 65536);
  f = fopen(argv[4], "wb");
  return rc || !f || fwrite(out, 1, sizeof out, f) != sizeof out || fclose(f) ? 3 : 0;
}
C
gcc -std=c99 -Wall -Wextra -Werror -I"$TMP/aos" -o "$TMP/conv" "$TMP/conv.c" || fail "the header does not compile"
"$TMP/conv" to pos "$TMP/pos.bin" "$TMP/posb.bin" && "$TMP/conv" to vel "$TMP/vel.bin" "$TMP/velb.bin" ||
  fail "conversion to the blocked layout"
"$COALCHECK" --launch "$EX/aos_soa/aos.launch" -q --arg "pos=f32[3*n]:file:$TMP/pos.bin" \
  --arg "vel=f32[3*n]:file:$TMP/vel.bin" --dump "pos=$TMP/orig.bin" >/dev/null ||
  fail "the original launch did not run"
"$COALCHECK" --launch "$TMP/aos/update_aos.launch" -q --arg "pos=f32[3*n]:file:$TMP/posb.bin" \
  --arg "vel=f32[3*n]:file:$TMP/velb.bin" --dump "pos=$TMP/fixedb.bin" --json "$TMP/fixed.json" \
  >/dev/null || fail "DIR's launch did not run"
"$TMP/conv" from pos "$TMP/fixedb.bin" "$TMP/fixed.bin" || fail "conversion back"
cmp -s "$TMP/orig.bin" "$TMP/fixed.bin" || fail "aos: DIR's kernel computes other positions"
jcheck "$TMP/fixed.json" 'd["kernels"][0]["totals"]["sectors"] == 73728'

# ---- examples/soa: mixed member sizes, a whole copy, the refusals -----------------------------
expect 0 "" "$COALCHECK" fix --transform soa --launch "$EX/soa/step.launch" -o "$TMP/step" -q \
  --json "$TMP/step.json"
jcheck "$TMP/step.json" 'd["verified"] is True and d["after"]["kernels"][0]["totals"]["sectors"] == 18432'
jcheck "$TMP/step.json" 'd["before"]["kernels"][0]["totals"]["sectors"] == 73728'
grep -q '{20, 4}, /\* padding \*/' "$TMP/step/step_soa_layout.h" || fail "step: header lacks the padding run"
expect 0 "" "$COALCHECK" fix --transform soa --launch "$EX/soa/knn.launch" -o "$TMP/knn" -q \
  --json "$TMP/knn.json"
jcheck "$TMP/knn.json" 'd["verified"] is True and d["after"]["kernels"][0]["totals"]["sectors"] == 12288'
grep -q 'point p = __cc_soa_pts_get(pts, i);' "$TMP/knn/soa.cu" || fail "knn: whole copy not rewritten"
line=$(grep -n 'norm2(p, i);' "$EX/soa/soa.cu" | cut -d: -f1)
expect 11 "soa.cu:$line:25: p is passed to norm2" "$COALCHECK" fix --transform soa \
  --launch "$EX/soa/energy.launch" -o "$TMP/energy" -q
grep -qF "(const float *x, const float *y, const float *z)" "$TMP/err" || fail "energy: no advice"
expect 11 "pad the array to a multiple of 32 elements (1024)" "$COALCHECK" fix --transform soa \
  --launch "$EX/soa/step_n1000.launch" -o "$TMP/n1000" -q
[ ! -e "$TMP/energy" ] && [ ! -e "$TMP/n1000" ] || fail "a refused fix wrote its folder"
# DIR's launch file carries the layout: soa(BYTES,OFFSETS...) before each converted buffer's
# INIT (body: runs at 0, 8, 12, 16 and the padding at 20 of 24 bytes; point: 0, 4, 8, 12 of
# 16), so that DIR's launch by itself gives the original's dumps byte for byte (its --dump
# undoes the layout); every buffer of the three kernels is compared
grep -qxF -e "--arg 'b=f32[6*n]:soa(24,0,8,12,16,20):random:11'" "$TMP/step/step.launch" ||
  fail "step: DIR's launch lacks the layout"
grep -qxF -e "--arg 'pts=f32[4*n]:soa(16,0,4,8,12):random:12'" "$TMP/knn/knn_dist.launch" ||
  fail "knn: DIR's launch lacks the layout"
grep -qxF -e "--arg 'dist=f32[n]:zero'" "$TMP/knn/knn_dist.launch" || fail "knn: dist changed"
dump_compare "$EX/soa/step.launch" "$TMP/step" b
for buf in pts dist label; do dump_compare "$EX/soa/knn.launch" "$TMP/knn" $buf; done
for buf in pos vel; do dump_compare "$EX/aos_soa/aos.launch" "$TMP/aos" $buf; done
"$COALCHECK" --launch "$TMP/step/step.launch" -q --json "$TMP/stepl.json" >/dev/null ||
  fail "step: DIR's launch did not run"
jcheck "$TMP/stepl.json" 'd["kernels"][0]["totals"]["sectors"] == 18432'
# the comparison can fail: without the layout the fixed kernel reads the bytes in the
# array-of-structures order and computes other values
sed 's/:soa([0-9,]*):/:/' "$TMP/step/step.launch" > "$TMP/step/nolayout.launch"
"$COALCHECK" --launch "$TMP/step/nolayout.launch" -q --dump "b=$TMP/nolayout.bin" >/dev/null ||
  fail "step: the launch without the layout did not run"
"$COALCHECK" --launch "$EX/soa/step.launch" -q --dump "b=$TMP/orig.bin" >/dev/null
cmp -s "$TMP/orig.bin" "$TMP/nolayout.bin" && fail "step: the layout changes nothing in the dump"
rm -f "$TMP/step/nolayout.launch"
# a layout the buffer does not fit is an input error naming the launch file's line: 1000
# bodies are not whole blocks of 32
printf '%s\n' "soa.cu --kernel step --grid 4 --block 256" "--nvcc-flags -I$EX/soa" \
  "--arg 'b=f32[6*n]:soa(24,0,8,12,16,20):random:11' --arg dt=0.25 --arg n=1000" \
  > "$TMP/bad.launch"
cp "$EX/soa/soa.cu" "$TMP/soa.cu"
expect 3 "bad.launch:3: buffer 'b': its 1000 structures are not a multiple of the layout's block of 32; pad the buffer to 1024 structures" \
  "$COALCHECK" --launch "$TMP/bad.launch" -q
expect 2 "bad --arg 'b=f32[6*n]:soa(24,8):zero': soa(): the offsets must start at 0" \
  "$COALCHECK" --launch "$EX/soa/step.launch" -q --arg 'b=f32[6*n]:soa(24,8):zero'
# a buffer laid out already is not converted again
expect 11 "has a layout in its --arg already" "$COALCHECK" fix --transform soa \
  --launch "$EX/soa/step.launch" --arg 'b=f32[6*n]:soa(24,0,8,12,16,20):random:11' \
  -o "$TMP/again" -q

# PTX in: the layout change needs the CUDA C source
"$(find_nvcc)" -ptx -lineinfo -arch=sm_90 -o "$TMP/soa.ptx" "$EX/soa/soa.cu" || fail "nvcc -ptx failed"
expect 11 "needs the kernel's CUDA C source" "$COALCHECK" fix --transform soa "$TMP/soa.ptx" \
  --kernel _Z4stepP4bodyfi --grid 64 --block 256 --arg 'b=f32[6*n]:random:11' --arg dt=0.25 \
  --arg n=16384 -o "$TMP/ptx" -q

finish
