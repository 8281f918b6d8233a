#!/bin/bash
# --jobs N (src/emu/README.md, Parallel CTAs): the report and every output buffer are the
# same for any number of threads.
#   1. every bundled example launch (examples/*/*.launch, 52 of them) with --jobs 1, 3
#      (uneven shares) and 4: the JSON reports are byte-identical once the wall time
#      ("seconds") is removed, and so are the --dump of every buffer argument;
#   1b. the transposes of bench/scale with --cache off (no ordered stream), two models;
#   2. kernels whose blocks may communicate (tests/e2e/data/jobs.cu): __threadfence and
#      clock() run serially with a note; integer atomics (count) give the same bins;
#   3. a memcheck error names the lowest failing block, as the serial run does, even when
#      a later block fails first in time (late_oob);
#   4. --jobs 0, 4097 and x, --cache-jobs 0, 65 and x are usage errors (exit 2).
# The examples are CUDA sources: part 1 is skipped without nvcc. Under ASan/UBSan
# (COALCHECK_SANITIZED=1, set by CMake) part 1 checks every fourth launch, in file order:
# the sanitized emulator took 12 minutes for all 52; the plain build checks them all.
. "$(dirname "$0")/data/common.bash"
J="$DATA/jobs.ptx"

# the JSON report without its wall time
norm() { jq -S 'del(.kernels[].emulator.seconds)' "$1"; }

# same_run NAME ARGS...: runs ARGS with --jobs 1, 3, 4; fails unless the reports and the
# dumps (--dump names in $BUFS) match the --jobs 1 run byte for byte
same_run() {
  local name=$1 j b
  shift
  for j in 1 3 4; do
    local dumps=()
    for b in $BUFS; do dumps+=(--dump "$b=$TMP/$j.$b.bin"); done
    if ! "$COALCHECK" "$@" -q --jobs $j --json "$TMP/$j.json" "${dumps[@]}" >/dev/null \
         2>"$TMP/err.$j"; then
      fail "$name --jobs $j did not run: $(head -c 400 "$TMP/err.$j")"
      return
    fi
    norm "$TMP/$j.json" >"$TMP/$j.norm" || { fail "$name --jobs $j: bad JSON"; return; }
  done
  for j in 3 4; do
    cmp -s "$TMP/1.norm" "$TMP/$j.norm" ||
      fail "$name: the report with --jobs $j differs: $(diff "$TMP/1.norm" "$TMP/$j.norm" | head -5)"
    for b in $BUFS; do
      cmp -s "$TMP/1.$b.bin" "$TMP/$j.$b.bin" || fail "$name: buffer $b differs with --jobs $j"
    done
  done
  checked=$((checked + 1))
}

# 1. the examples
checked=0
every=1
[ -n "${COALCHECK_SANITIZED:-}" ] && every=4
if [ -n "$(find_nvcc)" ]; then
  i=0
  for l in "$COALCHECK_SRC"/examples/*/*.launch; do
    i=$((i + 1))
    [ $(((i - 1) % every)) -eq 0 ] || continue
    # buffer arguments: --arg 'NAME=TYPE[COUNT]...'
    BUFS=$(grep -o "arg '[A-Za-z_][A-Za-z_0-9]*=[a-z0-9]*\[" "$l" | sed "s/arg '//; s/=.*//" | sort -u | tr '\n' ' ')
    [ -n "$BUFS" ] || fail "$l: no buffer argument found"
    same_run "${l#"$COALCHECK_SRC"/}" --launch "$l"
  done
  # examples/README.md lists 52 launches (tests/cli/test_cli_affine_cross.c counts them too)
  [ "$i" = 52 ] || fail "found $i example launches, expected 52"
  [ "$checked" = $(((52 + every - 1) / every)) ] || fail "checked $checked example launches"
else
  echo "note: no nvcc: the examples part is skipped"
fi

# 1b. the analyses' figures summed in the workers and merged (docs/scaling.md, "Sink on
# several threads"): with no consumer that needs the serial order (--cache off, no
# --html, no --trace) no record is buffered at all; with two models; with the cache
# model on the ordered stream. The PTX of bench/scale: no nvcc needed.
T="$COALCHECK_SRC/bench/scale/transpose.ptx"
BUFS=out
for kg in _Z15transpose_naivePfPKfi:8,32 _Z15transpose_tiledPfPKfi:8,8; do
  for extra in "--cache off" "--arch sm_90,cc1.2 --cache off" "--arch cc1.2,sm_90"; do
    # shellcheck disable=SC2086 # extra is several options
    same_run "${kg%%:*} $extra" "$T" --kernel "${kg%%:*}" --grid "${kg#*:}" --block 32,8 \
      --arg 'out=f32[n*n]:zero' --arg 'in=f32[n*n]:random:1' --arg n=256 $extra
  done
done

# 2. communicating blocks. count: 40 blocks x 96 threads = 3840 adds over bins
# i % 7: 3840 = 7 * 548 + 4, so bins 0..3 get 549 and bins 4..6 get 548
BUFS=bins
same_run count "$J" --kernel count --grid 40 --block 96 --arg 'bins=u32[7]:zero'
[ "$(od -An -v -tu4 "$TMP/4.bins.bin" | tr -s ' \n' ' ')" = " 549 549 549 549 548 548 548 " ] ||
  fail "count: bins $(od -An -v -tu4 "$TMP/4.bins.bin")"
for k in fence clock_read; do
  args=(--arg 'out=u32[1024]:zero')
  [ $k = fence ] && args+=(--arg 'count=u32[1]:zero')
  BUFS=out
  same_run $k "$J" --kernel $k --grid 8 --block 128 "${args[@]}"
  expect 0 "" "$COALCHECK" "$J" --kernel $k --grid 8 --block 128 "${args[@]}" --jobs 4
  grep -q "^coalcheck: note: kernel $k runs its blocks one after another on one thread: " \
    "$TMP/err" || fail "$k --jobs 4: no note that it runs serially: $(cat "$TMP/err")"
done

# 3. the lowest failing block: out holds n = 160 words (5 blocks x 32, 640 bytes); block
# b in {5, 9} writes word n + 32 b + tid: block 5's thread 0 writes word 320, byte 1280,
# which is 1280 - 640 = 640 bytes after the end of out
L=("$COALCHECK" "$J" --kernel late_oob --grid 12 --block 32 --arg 'out=u32[160]:zero' --arg n=160)
expect 5 "by thread (0,0,0) in block (5,0,0)" "${L[@]}" --arg work=200000 --jobs 1
grep -q "640 bytes after the end of buffer 'out'" "$TMP/err" || fail "late_oob: $(cat "$TMP/err")"
cp "$TMP/err" "$TMP/err.serial"
expect 5 "by thread (0,0,0) in block (5,0,0)" "${L[@]}" --arg work=200000 --jobs 4
cmp -s "$TMP/err.serial" "$TMP/err" ||
  fail "the memcheck error differs with --jobs 4: $(cat "$TMP/err.serial" "$TMP/err")"

# 4. bad --jobs
for v in 0 4097 x; do
  expect 2 "bad value '$v' for --jobs: expected an integer in 1..4096" \
    "$COALCHECK" "$J" --kernel count --grid 1 --block 32 --arg 'bins=u32[7]:zero' --jobs $v
done
for v in 0 65 x; do
  expect 2 "bad value '$v' for --cache-jobs: expected an integer in 1..64" \
    "$COALCHECK" "$J" --kernel count --grid 1 --block 32 --arg 'bins=u32[7]:zero' --cache-jobs $v
done

[ "$fails" = 0 ] || exit 1
echo "ok: $checked runs identical under --jobs 1, 3, 4"
