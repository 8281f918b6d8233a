#!/usr/bin/env bash
# Coalcheck binaries (or one binary with different options) alternated on bench/scale.sh's
# three cases, cache model on: the emulation time ("emulator.seconds" of the JSON report)
# of each run, one line each, for A/B checks of a change to the --jobs path on the
# device's 16-core machines (their speed varies between machines and runs: alternate,
# repeat, compare within one call).
#
# usage: bash bench/scale-ab.sh CARRY A B [C ...]
#   CARRY  a folder made by bench/scale-carry.sh (its env.sh and lib/), holding the binaries
#   A, B, ... variants: a binary's file name inside CARRY, optionally followed by options
#          joined with '+' (coalcheck+--cache-jobs=4: that binary with --cache-jobs 4)
#   SCALE_AB_JOBS (default "1 4 8 16"), SCALE_AB_ROUNDS (default 2), SCALE_AB_CASES
#          (default "naive tiled covariance")
# Output lines: CASE VARIANT jobs N rep R emu SECONDS
set -uo pipefail
set -f # the launch arguments hold brackets
here=$(cd "$(dirname "$0")" && pwd)
carry=${1:?usage: bash bench/scale-ab.sh CARRY A B}
[ $# -ge 3 ] || { echo "usage: bash bench/scale-ab.sh CARRY A B [C ...]" >&2; exit 2; }
shift
variants=("$@")
# shellcheck disable=SC1091
. "$carry/env.sh"
cd "$here/.." || exit 1
# shellcheck source=bench/scale/cases.bash
. "$here/scale/cases.bash" # case_args
json=$(mktemp)
for c in ${SCALE_AB_CASES:-naive tiled covariance}; do
  for r in $(seq 1 "${SCALE_AB_ROUNDS:-2}"); do
    for j in ${SCALE_AB_JOBS:-1 4 8 16}; do
      for v in "${variants[@]}"; do
        bin=${v%%+*} opts=()
        [ "$bin" = "$v" ] || IFS=+ read -r -a opts <<<"${v#*+}"
        # shellcheck disable=SC2046 # the launch's words
        if "$carry/$bin" $(case_args "$c") "${opts[@]}" -q --jobs "$j" --json "$json" \
             >/dev/null 2>&1; then
          python3 -c "import json,sys; d=json.load(open(sys.argv[1]))
print('$c $v jobs $j rep $r emu', round(d['kernels'][0]['emulator']['seconds'], 3))" "$json"
        else
          echo "$c $v jobs $j rep $r failed"
        fi
      done
    done
  done
done
rm -f "$json"
