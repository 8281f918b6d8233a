#!/usr/bin/env python3
"""Best of several runs of bench/scale.sh: one table whose rows take, per case and run,
the least emulation time ("emu s") of the given tables, with the speed-up computed again
against the best --jobs 1 row of the same case and the number of runs each row saw.

usage: python3 bench/scale-best.py TABLE.md [TABLE.md ...]   (bench/scale.sh's output)
Why: the device tool's 16-core VMs vary 25-50% between runs of one binary; one run per
row made --jobs 2 look slower than --jobs 1 on one machine (scale-2026-11-27-s8)."""
import sys


def rows(path):
    """(case, run) -> (thread-insns, emu s, wall s, rss, same) of one table."""
    out = {}
    for line in open(path):
        f = [c.strip() for c in line.strip().strip('|').split('|')]
        if len(f) != 10 or f[0] in ('case', '---'):
            continue
        try:
            out[(f[0], f[1])] = (int(f[2]), float(f[3]), float(f[4]), f[7], f[9])
        except ValueError:
            continue
    return out


def main(paths):
    best, seen, order = {}, {}, []
    for p in paths:
        for key, r in rows(p).items():
            if key not in best:
                order.append(key)
            seen[key] = seen.get(key, 0) + 1
            if key not in best or r[1] < best[key][1]:
                best[key] = r
            elif r[4] != 'same':  # a run that differed is kept visible
                best[key] = best[key][:4] + (r[4],)
    print('| case | run | thread-insns | best emu s | wall s | M/s (emu) | peak RSS MiB |'
          ' speed-up | runs | same |')
    print('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |')
    for case, run in order:
        n, emu, wall, rss, same = best[(case, run)]
        base = best.get((case, '--jobs 1'))
        speed = f'{base[1] / emu:.2f}x' if base and emu > 0 else 'n/a'
        print(f'| {case} | {run} | {n} | {emu:.3f} | {wall:.2f} | {n / emu / 1e6:.0f} | {rss} |'
              f' {speed} | {seen[(case, run)]} | {same} |')


if __name__ == '__main__':
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
