"""Table of bench/gpu-inline.sh's results: python3 bench/gpu-inline.py OUT > table.md.

Per launch: kernel time native / inline / sanitizer (ms, median of the launcher's timed
runs) and the ratios to native; the wall time of the two coalcheck runs (s); and whether
the counts agree. The inline report counts per PTX instruction, the Sanitizer per SASS
instruction: both are compared per source line (file:line of the kernel's .loc) and in
total, on requests, lanes, sectors (global) and wavefronts (shared)."""
import json
import os
import statistics
import sys


def ms(path):
    try:
        return float(open(path).read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def sums(path):
    """{(space, file, line): [requests, lanes, units]} and the totals, or None."""
    try:
        k = json.load(open(path))["kernels"][0]
    except (OSError, ValueError, KeyError, IndexError):
        return None
    out = {}
    for i in k["instructions"]:
        if i["space"] not in ("global", "shared"):
            continue
        src = i.get("source") or {}
        key = (i["space"], os.path.basename(src.get("file") or "?"), src.get("line", 0))
        units = i.get("wavefronts") if i["space"] == "shared" else i.get("sectors")
        v = out.setdefault(key, [0, 0, 0])
        for n, x in enumerate((i["requests"], i["thread_accesses"], units or 0)):
            v[n] += x
    return out


def main():
    root = sys.argv[1]
    rows, ratios_i, ratios_s = [], [], []
    for name in sorted(os.listdir(root)):
        w = os.path.join(root, name)
        if not os.path.isdir(w):
            continue
        n, i, s = (ms(os.path.join(w, m, "time.txt")) for m in ("native", "inline", "sanitizer"))
        try:
            wall = open(os.path.join(w, "wall.txt")).read().split()
        except OSError:
            wall = ["-", "-"]
        a, b = sums(os.path.join(w, "inline.json")), sums(os.path.join(w, "sanitizer.json"))
        if a is None or b is None:
            agree = "no report"
        else:
            diff = [k for k in set(a) | set(b) if a.get(k) != b.get(k)]
            tot = lambda d: [sum(v[j] for v in d.values()) for j in range(3)]
            agree = "equal (%d lines)" % len(a) if not diff else "%d of %d lines differ; totals %s vs %s" % (
                len(diff), len(set(a) | set(b)), tot(a), tot(b))
        xi = i / n if n and i else None
        xs = s / n if n and s else None
        if xi:
            ratios_i.append(xi)
        if xs:
            ratios_s.append(xs)
        f = lambda v, d=3: "-" if v is None else "%.*f" % (d, v)
        rows.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            name, f(n), f(i), f(s), f(xi, 2) + "x" if xi else "-", f(xs, 2) + "x" if xs else "-",
            wall[0], wall[1], agree))
    print("| launch | native ms | inline ms | sanitizer ms | inline x | sanitizer x | inline wall s | sanitizer wall s | counts (inline vs sanitizer, per source line) |")
    print("|---|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    if ratios_i and ratios_s:
        print("\n- inline: median %.2fx native, max %.2fx; sanitizer (exact): median %.2fx, max %.2fx"
              % (statistics.median(ratios_i), max(ratios_i), statistics.median(ratios_s), max(ratios_s)))


if __name__ == "__main__":
    main()
