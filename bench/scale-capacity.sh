#!/usr/bin/env bash
# What N cores give any program on this machine, against which issue 15's "linear" is
# read: bench/scale.sh's cases at `--jobs 1 --cache off`, one run alone, then N copies at
# once (each its own process), then one `--jobs N --cache off` run; the emulation seconds
# of each ("emulator.seconds" of the JSON report). On the device's 16-core machines one
# copy ran 1.05x (naive), 1.24x (tiled) and 1.37x (covariance) longer on average when 16
# ran at once (bench/results/scale-2026-11-28-s13.md): the machine's ceiling at 16
# threads, for any program, is 16 x alone / mean, below 16x.
#
# usage: bash bench/scale-capacity.sh CARRY [N]
#   CARRY  a folder made by bench/scale-carry.sh (its env.sh, lib/ and coalcheck), or a
#          build folder holding coalcheck (no env.sh: nothing sourced)
#   N      copies and threads (default: the cores available, nproc)
#   SCALE_CAP_CASES (default "naive tiled covariance")
# Output, per case: the lone run, each copy, then
#   CASE capacity: alone A s, N at once: mean M s (max X), ratio M/A, ceiling N*A/M x
#   CASE --jobs N: T s, efficiency (M / N) / T (1.0: all the machine gives N threads)
set -uo pipefail
set -f # the launch arguments hold brackets
here=$(cd "$(dirname "$0")" && pwd)
carry=$(cd "${1:?usage: bash bench/scale-capacity.sh CARRY [N]}" && pwd)
n=${2:-$(nproc)}
# shellcheck disable=SC1091
[ -f "$carry/env.sh" ] && . "$carry/env.sh"
cd "$here/.." || exit 1
# shellcheck source=bench/scale/cases.bash
. "$here/scale/cases.bash" # case_args
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
emu() { # the emulation seconds of JSON report $1
  python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['kernels'][0]['emulator']['seconds'])" "$1"
}
run() { # run CASE JOBS JSON
  # shellcheck disable=SC2046 # the launch's words
  "$carry/coalcheck" $(case_args "$1") --cache off -q --jobs "$2" --json "$3" >/dev/null 2>&1
}
for c in ${SCALE_CAP_CASES:-naive tiled covariance}; do
  run "$c" 1 "$tmp/alone.json" || { echo "$c alone: failed"; continue; }
  alone=$(emu "$tmp/alone.json")
  echo "$c alone emu $alone"
  for i in $(seq 1 "$n"); do run "$c" 1 "$tmp/c$i.json" & done
  wait
  for i in $(seq 1 "$n"); do echo "$c copy $i emu $(emu "$tmp/c$i.json" 2>/dev/null || echo failed)"; done
  run "$c" "$n" "$tmp/par.json" || { echo "$c --jobs $n: failed"; continue; }
  copies=()
  for i in $(seq 1 "$n"); do copies+=("$tmp/c$i.json"); done
  python3 - "$c" "$n" "$alone" "$(emu "$tmp/par.json")" "${copies[@]}" <<'EOF'
import json, sys
c, n, alone, par = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
t = [json.load(open(f))["kernels"][0]["emulator"]["seconds"] for f in sys.argv[5:]]
mean = sum(t) / len(t)
print(f"{c} capacity: alone {alone:.3f} s, {n} at once: mean {mean:.3f} s (max {max(t):.3f}),"
      f" ratio {mean / alone:.2f}, ceiling {n * alone / mean:.1f}x")
print(f"{c} --jobs {n}: {par:.3f} s, efficiency {mean / n / par:.2f}")
EOF
done
