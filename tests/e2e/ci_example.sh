#!/bin/bash
# docs/ci.md's CI job (examples/ci/coalescing.yml, which docs/ci.md holds verbatim): the
# command of its gate step, run for each launch file of its matrix as the job runs it, from
# the repository root, with build/coalcheck replaced by $COALCHECK (the job's build step,
# apt-get and cmake, is not run here): exit 12 on examples/ci/scale.launch, exit 0 on
# examples/ci/fixed/scale.launch. Also: examples/ci/fixed is what `coalcheck fix` writes
# today (but the launch file's --nvcc-flags line, an absolute -I), and both kernels compute
# out = 0.5 * in, bitwise alike. Needs nvcc and PyYAML (scripts/setup.sh); skipped without.
#
# Expected figures, by hand (examples/ci/scale.cu's header has the derivation): scale.cu's
# load and store each 8192 requests of 32 sectors where 4 would do: 229,376 excess sectors
# and efficiency 4/32 = 0.125 each, so both gates ('excess-sectors>0', 'efficiency<0.5')
# trip on both instructions: 4 trips; the kernel 16,384 requests, 524,288 sectors, ideal
# 65,536. fixed/scale.cu: 4 sectors per request, 65,536 sectors, no excess: no trip.
. "$(dirname "$0")/data/common.bash"
[ -n "$(find_nvcc)" ] || { echo "skip: nvcc not found"; exit 77; }
python3 -c 'import yaml' 2>/dev/null ||
  { echo "skip: the Python yaml package is missing (scripts/setup.sh installs python3-yaml)"; exit 77; }
CI="$COALCHECK_SRC/examples/ci"
YML="$CI/coalescing.yml"

python3 - "$YML" "$COALCHECK_SRC/docs/ci.md" >"$TMP/job" <<'EOF' || fail "cannot read the job"
import sys, yaml
text = open(sys.argv[1]).read()
if text not in open(sys.argv[2]).read():
    sys.exit("docs/ci.md does not hold %s verbatim" % sys.argv[1])
job = yaml.safe_load(text)["jobs"]["gate"]
run = [s["run"] for s in job["steps"] if s.get("name") == "gate"][0]
print(run.strip())
for launch in job["strategy"]["matrix"]["launch"]:
    print(launch)
EOF
run=$(sed -n 1p "$TMP/job")
case "$run" in
  'build/coalcheck '*'${{ matrix.launch }}'*) ;;
  *) fail "the gate step's command is '$run'" ;;
esac
sed -n '2,$p' "$TMP/job" >"$TMP/launches"
[ "$(tr '\n' ' ' <"$TMP/launches")" = "examples/ci/scale.launch examples/ci/fixed/scale.launch " ] ||
  fail "the matrix is $(tr '\n' ' ' <"$TMP/launches")"

# gate LAUNCH CODE TRIPS NEEDLE: the job's command for LAUNCH exits CODE, writes TRIPS
# trip lines and a report holding NEEDLE
gate() {
  local launch=$1 code=$2 trips=$3 needle=$4 cmd rc
  cmd=${run//'${{ matrix.launch }}'/$launch}
  cmd="\"\$COALCHECK\" ${cmd#build/coalcheck }"
  (cd "$COALCHECK_SRC" && COALCHECK="$COALCHECK" bash -c "$cmd") >"$TMP/out" 2>"$TMP/err"
  rc=$?
  [ "$rc" -eq "$code" ] || { fail "$launch: the gate exited $rc, expected $code"; cat "$TMP/err"; }
  [ "$(grep -c "^coalcheck: gate '" "$TMP/err")" -eq "$trips" ] ||
    { fail "$launch: not $trips trip lines"; cat "$TMP/err"; }
  grep -qF "$needle" "$TMP/out" || fail "$launch: the report lacks '$needle': $(head -n4 "$TMP/out")"
}
gate examples/ci/scale.launch 12 4 "global: 16,384 requests, 524,288 sectors, ideal 65,536, excess 458,752"
[ "$(grep -c "scale.cu:23 .*; excess-sectors 229376$" "$TMP/err")" -eq 2 ] ||
  fail "scale.launch: not 2 excess-sectors trips of 229376 at scale.cu:23"
[ "$(grep -c "scale.cu:23 .*; efficiency 0.125$" "$TMP/err")" -eq 2 ] ||
  fail "scale.launch: not 2 efficiency trips of 0.125 at scale.cu:23"
grep -q "^coalcheck: error: 4 gate trips" "$TMP/err" || fail "scale.launch: no '4 gate trips' line"
gate examples/ci/fixed/scale.launch 0 0 "global: 16,384 requests, 65,536 sectors, ideal 65,536, excess 0"

# fixed/ is `coalcheck fix`'s output (run as scale.cu's header says), with the launch
# file's absolute -I line dropped; without libclang, fix refuses .cu inputs
if "$COALCHECK" --version | grep -q "^CUDA C front end (libclang): included"; then
  (cd "$CI" && "$COALCHECK" fix --launch scale.launch -o "$TMP/fixed" -q) >/dev/null 2>"$TMP/err" ||
    { fail "coalcheck fix of scale.launch exited $?"; cat "$TMP/err"; }
  grep -q "^--nvcc-flags '-I$CI'$" "$TMP/fixed/scale.launch" || fail "fix wrote no -I line to drop"
  sed -i "/^--nvcc-flags '-I/d" "$TMP/fixed/scale.launch"
  diff -r "$CI/fixed" "$TMP/fixed" >"$TMP/diff" || { fail "examples/ci/fixed is not fix's output"; cat "$TMP/diff"; }
else
  echo "note: built without libclang: fixed/ is not compared with a new fix"
fi

# both compute out = 0.5 * in (exact in binary floating point), bitwise alike
for v in scale:orig fixed/scale:fixed; do
  "$COALCHECK" --launch "$CI/${v%%:*}.launch" -q --dump "in=$TMP/in.${v#*:}.bin" \
    --dump "out=$TMP/out.${v#*:}.bin" >/dev/null 2>"$TMP/err" ||
    { fail "${v%%:*}.launch did not run"; cat "$TMP/err"; }
done
python3 - "$TMP" <<'EOF' || fail "out is not 0.5 * in"
import struct, sys
def floats(name):
    b = open("%s/%s.bin" % (sys.argv[1], name), "rb").read()
    assert len(b) == 512 * 512 * 4, (name, len(b))
    return struct.unpack("<%df" % (len(b) // 4), b)
i, o = floats("in.orig"), floats("out.orig")
assert any(x != 0 for x in i), "in is all zero"
assert all(y == 0.5 * x for x, y in zip(i, o)), "out != 0.5 * in"
EOF
cmp -s "$TMP/in.orig.bin" "$TMP/in.fixed.bin" || fail "the fixed launch's input differs"
cmp -s "$TMP/out.orig.bin" "$TMP/out.fixed.bin" || fail "the fixed kernel's output differs"
finish
