#!/usr/bin/env python3
"""Table 3's fixes made again with the code of today against a timed run's (bench/table3.sh).

usage: python3 bench/table3-recheck.py TIMED_PREPARE.tsv TIMED_DEVICE.tsv NEW_PREPARE.tsv

For each case: the transformation and figures of the new `prepare` (global sectors before
and after, verified, outputs bitwise or reassociated within the bound), whether they equal
the timed run's prepare row (transformation, its description, sectors, verification,
comparison), and the timed run's GPU medians (original, fixed, speed-up). A plan whose row
is equal is the plan that was timed, so its time holds for the code of today; a row that
differs says so and gives no time for it."""
import csv
import sys

KEYS = ("status", "transform", "choice", "sectors_before", "sectors_after", "verified",
        "compare")


def rows(path):
    with open(path, newline="") as f:
        return {r["case"]: r for r in csv.DictReader(f, delimiter="\t")}


def times(path):
    t = {}
    with open(path) as f:
        for line in f:
            p = line.rstrip("\n").split("\t")
            if len(p) > 2 and p[0] == "time":
                t[p[1]] = float(p[2])
    return t


def fmt_int(s):
    return f"{int(s):,}" if s and s.isdigit() else (s or "-")


def main(argv):
    if len(argv) != 4:
        sys.exit(__doc__)
    old, dev, new = rows(argv[1]), times(argv[2]), rows(argv[3])
    print("| case | transform (today) | global sectors before -> after | verified | outputs "
          "| same plan as the timed run | original ms | fixed ms | speed-up |")
    print("| --- | --- | --- | --- | --- | --- | ---: | ---: | ---: |")
    same_all = 0
    for case, r in new.items():
        o = old.get(case)
        same = o is not None and all(o.get(k) == r.get(k) for k in KEYS)
        same_all += same
        to, tf = dev.get(case + ".orig"), dev.get(case + ".fixed")
        timed = same and to and tf
        print(f"| {case} | {r['transform']} | {fmt_int(r['sectors_before'])} -> "
              f"{fmt_int(r['sectors_after'])} | {r['verified']} | {r['compare']} | "
              f"{'yes' if same else 'NO: ' + ', '.join(k for k in KEYS if o and o.get(k) != r.get(k))} | "
              f"{to if timed else '-'} | {tf if timed else '-'} | "
              f"{f'{to / tf:.2f}x' if timed else '-'} |")
    print(f"\n{same_all} of {len(new)} plans equal the timed run's.")


if __name__ == "__main__":
    main(sys.argv)
