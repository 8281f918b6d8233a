# Shared by tests/e2e/*.sh (sourced; not a test itself: CTest runs only *.sh).
# $COALCHECK is the binary, $COALCHECK_SRC the source tree (both set by CTest).
if [ -z "${COALCHECK:-}" ]; then
  echo "skip: COALCHECK is not set (run through ctest)"
  exit 77
fi
DATA="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
TMP="$(mktemp -d "${TMPDIR:-/tmp}/cc-e2e-XXXXXX")"
trap 'rm -rf "$TMP"' EXIT
fails=0

fail() {
  echo "FAIL: $*"
  fails=$((fails + 1))
}

# expect CODE NEEDLE CMD...: CMD exits with CODE and, unless CODE is 0, its standard error
# is "coalcheck: error: ..." containing NEEDLE (a fixed string; "" skips the check).
expect() {
  local code=$1 needle=$2 rc
  shift 2
  "$@" >"$TMP/out" 2>"$TMP/err"
  rc=$?
  if [ "$rc" -ne "$code" ]; then
    fail "$* exited $rc, expected $code"
    sed 's/^/  stderr: /' "$TMP/err"
    return
  fi
  if [ "$code" -ne 0 ] && ! head -n1 "$TMP/err" | grep -q '^coalcheck: error: '; then
    fail "$*: stderr does not start with 'coalcheck: error: '"
    sed 's/^/  stderr: /' "$TMP/err"
  fi
  if [ -n "$needle" ] && ! grep -qF -- "$needle" "$TMP/err"; then
    fail "$*: stderr lacks '$needle'"
    sed 's/^/  stderr: /' "$TMP/err"
  fi
}

# The nvcc coalcheck would run, or nothing.
find_nvcc() {
  command -v nvcc 2>/dev/null || { [ -x /usr/local/cuda/bin/nvcc ] && echo /usr/local/cuda/bin/nvcc; }
}

# jcheck FILE EXPR: fails unless the Python expression EXPR holds for d, FILE's JSON
jcheck() {
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" \
    "$1" || fail "$1: not true: $2"
}

# `coalcheck fix`'s DIR: dump_compare LAUNCH DIR BUF runs the original launch and DIR's
# launch with --dump BUF and fails unless the two dumps are bitwise equal
dump_compare() {
  local launch=$1 dir=$2 buf=$3 fixed
  fixed=$(ls "$dir"/*.launch)
  "$COALCHECK" --launch "$launch" -q --dump "$buf=$TMP/orig.bin" >/dev/null 2>"$TMP/e1" ||
    { fail "original $launch did not run"; cat "$TMP/e1"; return; }
  "$COALCHECK" --launch "$fixed" -q --dump "$buf=$TMP/fixed.bin" >/dev/null 2>"$TMP/e2" ||
    { fail "fixed $fixed did not run"; cat "$TMP/e2"; return; }
  cmp -s "$TMP/orig.bin" "$TMP/fixed.bin" || fail "$fixed: buffer $buf differs from the original's"
}

# jobs_same NAME "J1 J2 ..." ARGS...: coalcheck ARGS -q --jobs J --json $TMP/J.json for
# each J; the JSON reports, less their wall times ("seconds"), must equal the first J's
# (normalised into $TMP/J.norm). Counts a failure and returns 1 otherwise.
jobs_same() {
  local name=$1 jobs=$2 j first=""
  shift 2
  for j in $jobs; do
    if ! "$COALCHECK" "$@" -q --jobs "$j" --json "$TMP/$j.json" >/dev/null 2>"$TMP/err.$j"; then
      fail "$name --jobs $j did not run: $(head -c 400 "$TMP/err.$j")"
      return 1
    fi
    jq -S 'del(.. | .seconds?)' "$TMP/$j.json" >"$TMP/$j.norm" ||
      { fail "$name --jobs $j: bad JSON"; return 1; }
    [ -n "$first" ] || first=$j
    if ! cmp -s "$TMP/$first.norm" "$TMP/$j.norm"; then
      fail "$name: the report with --jobs $j differs from --jobs $first's: $(diff "$TMP/$first.norm" "$TMP/$j.norm" | head -6)"
      return 1
    fi
  done
}

finish() {
  if [ "$fails" -ne 0 ]; then
    echo "$fails check(s) failed"
    exit 1
  fi
  echo "all checks passed"
  exit 0
}

# A stand-in libcuda.so.1 in $TMP/drv (all that coalcheck's GPU probe calls: cuInit, and
# cuDeviceGetCount saying one device), for the GPU backend's tests without a GPU; put
# $TMP/drv on LD_LIBRARY_PATH. Exits 77 (skip) without a C compiler.
stand_in_driver() {
  local cc
  cc=$(command -v cc || command -v gcc)
  [ -n "$cc" ] || { echo "skip: no C compiler for the stand-in driver"; exit 77; }
  mkdir -p "$TMP/drv"
  printf 'int cuInit(unsigned f) { (void)f; return 0; }\nint cuDeviceGetCount(int *n) { *n = 1; return 0; }\n' > "$TMP/drv.c"
  "$cc" -shared -fPIC -o "$TMP/drv/libcuda.so.1" "$TMP/drv.c" || { fail "stand-in driver"; finish; }
}

# The browser checks' prerequisites (tests/e2e/data/browser.py): sets CHROMIUM, or, when
# chromium or playwright for Python is missing, exits: 77 (skip) when the checks so far
# all held, else 1.
need_browser() {
  export PYTHONDONTWRITEBYTECODE=1 # no __pycache__ left in the source tree
  CHROMIUM="$(command -v chromium || command -v chromium-browser || true)"
  if [ -n "$CHROMIUM" ] && python3 -c 'import playwright.sync_api' 2>/dev/null; then
    return
  fi
  echo "skip: the browser checks: chromium or playwright for Python not installed" \
    "(scripts/setup.sh installs them)"
  [ "$fails" -eq 0 ] && exit 77
  exit 1
}

# line_sum FILE WHICH OP LINE KEY: the sum of KEY ("sectors", "requests") of the global
# OP instructions ("load", "store") on source line LINE in report WHICH ("before",
# "after") of the fix JSON FILE (coalcheck fix --json)
line_sum() {
  python3 - "$1" "$2" "$3" "$4" "$5" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); which, op, line, key = sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
k = d[which]["kernels"][0]
print(sum(i[key] for i in k["instructions"]
          if i["op"] == op and i["space"] == "global" and i["source"]["line"] == line))
PY
}

# line_sectors FILE WHICH OP LINE: line_sum's sectors
line_sectors() {
  line_sum "$1" "$2" "$3" "$4" sectors
}
