#!/bin/bash
# bench/unseen/run.sh [BUILD] [LAUNCH...]: for each launch file of bench/unseen/polybench
# (or those named), the analysis (`coalcheck --launch F --json`) and `coalcheck fix --launch F
# --transform auto -o OUT --json` with a time limit of 600 s each; writes OUT=$RESULTS
# (default /tmp/cc-unseen)/NAME.{json,fix.json,fix.err,time} and prints one table row per
# kernel (bench/unseen/table.py makes the Markdown table from them).
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}; shift
cc=$build/coalcheck
out=${RESULTS:-/tmp/cc-unseen}
mkdir -p "$out"
launches=("$@")
[ ${#launches[@]} -gt 0 ] || launches=("$here"/polybench/*.launch)
for f in "${launches[@]}"; do
  n=$(basename "$f" .launch)
  timeout 600 "$cc" --launch "$f" -q --json "$out/$n.json" >/dev/null 2>"$out/$n.err"
  echo "analysis rc=$?" >"$out/$n.rc"
  rm -rf "$out/$n.fix"
  s=$(date +%s.%N)
  timeout 600 "$cc" fix --launch "$f" --transform auto -o "$out/$n.fix" -q \
    --json "$out/$n.fix.json" >"$out/$n.fix.out" 2>"$out/$n.fix.err"
  rc=$?
  e=$(date +%s.%N)
  echo "fix rc=$rc" >>"$out/$n.rc"
  python3 -c "print(f'{$e - $s:.1f}')" >"$out/$n.time"
  echo "$n rc=$rc $(cat "$out/$n.time") s"
done
