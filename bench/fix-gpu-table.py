#!/usr/bin/env python3
"""Markdown table of bench/fix-gpu.sh: the fix decisions (DIR/fix.tsv, made here) and the
GPU figures (OUT/fix-gpu.tsv: median kernel time, Nsight Compute's global requests and
sectors, DRAM bytes) of each case's original and fixed launch.
    python3 bench/fix-gpu-table.py DIR/fix.tsv OUT/fix-gpu.tsv"""
import csv
import sys


def read(path):
    with open(path) as f:
        return list(csv.DictReader(f, delimiter="\t"))


def num(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return None


def main():
    fix, gpu = read(sys.argv[1]), {r["plan"]: r for r in read(sys.argv[2])}
    print("| case | strategy | choice | decide (s) | emulated sectors before -> after | verified |")
    print("| --- | --- | --- | ---: | --- | --- |")
    for r in fix:
        print(f"| {r['case']} | {r['strategy']} | {r['choice']} | {r['decide_s']} | "
              f"{r['sectors_before']} -> {r['sectors_after']} | {r['verified']} |")
    print()
    print("| case | fix by | kernel ms before | after | speed-up | ncu ld+st sectors before "
          "| after | DRAM MB before | after |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for case in sorted({r["case"] for r in fix}):
      for strategy in ("model", "empirical"):
        o, f = gpu.get(case + ".orig"), gpu.get(case + ".fixed-" + strategy)
        if not o or not f:
            print(f"| {case} | {strategy} | missing | | | | | | |")
            continue
        def sect(r):
            a, b = num(r["ld_sectors"]), num(r["st_sectors"])
            return f"{int(a + b):,}" if a is not None and b is not None else "-"
        def mb(r):
            v = num(r["dram_bytes"])
            return f"{v / 1e6:.1f}" if v is not None else "-"
        to, tf = num(o["median_ms"]), num(f["median_ms"])
        sp = f"{to / tf:.2f}x" if to and tf else "-"
        print(f"| {case} | {strategy} | {to:.4f} | {tf:.4f} | {sp} | {sect(o)} | {sect(f)} "
              f"| {mb(o)} | {mb(f)} |")


if __name__ == "__main__":
    main()
