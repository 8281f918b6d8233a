#!/usr/bin/env python3
"""Markdown of bench/table3.sh: CGO 2015 Table 3 reproduced on one GPU.

    python3 bench/table3-table.py DIR/prepare.tsv OUT/table3.tsv [DEVICE_COMMAND]

DIR/prepare.tsv (made here: each case's fix), DIR/prepare.txt beside it (date, host,
coalcheck, root) and OUT/table3.tsv (made on the GPU: info, copy, vendor, ncu and time
rows). DEVICE_COMMAND, when given, is the command line that ran the device half (shown in
the header; default `bash bench/table3.sh device DIR`).

Per case: the kernel times of the original and the fix (medians, uninstrumented), the
speed-up against the paper's K20 kernel speed-up, the fix's achieved bandwidth (the case's
ideal bytes, each input element read once and each output element written once, over its
median time) as a percentage of the device-to-device copy bandwidth measured in the same
run (cudaMemcpyDeviceToDevice: bytes read + written over time), cuBLAS at the same math
and the fix's time over it, and the issue's goals: speed-up >= the paper's; memory-bound
fixes at >= 80% of the copy bandwidth; gemv-shaped fixes within 1.1x of cuBLAS."""
import csv
import os
import sys

BW_GOAL = 0.80       # memory-bound fixes: >= 80% of the copy bandwidth (issue 10)
VENDOR_GOAL = 1.10   # gemv-shaped fixes: within 1.1x of cuBLAS sgemv (issue 10)
GEMV_SPECS = ("sgemv_rows:", "sgemv_cols:", "gesummv:")
L2_BYTES = 50 * 2**20  # the H100's and H200's L2


def read_tsv(path):
    with open(path) as f:
        return list(csv.DictReader(f, delimiter="\t"))


def num(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return None


def ms(v):
    if v is None:
        return "-"
    return f"{v:.4f}" if v < 10 else f"{v:.1f}"


def read_info(path):
    """key: value lines of DIR/prepare.txt, {} when absent."""
    try:
        with open(path) as f:
            return dict(l.rstrip("\n").split(": ", 1) for l in f if ": " in l)
    except OSError:
        return {}


class Device:
    """The device TSV: info notes, copy bandwidth (bytes/ms), vendor and time medians,
    ncu figures."""

    def __init__(self, rows):
        self.info = {r["name"]: r["note"] for r in rows if r["kind"] == "info"}
        self.copy = {r["name"]: (num(r["median_ms"]), num(r["bytes"]))
                     for r in rows if r["kind"] == "copy"}
        self.vendor = {r["name"]: (num(r["median_ms"]), r["note"])
                       for r in rows if r["kind"] == "vendor"}
        self.time = {r["name"]: (num(r["median_ms"]), r["runs"], r["note"])
                     for r in rows if r["kind"] == "time"}
        self.ncu = {}
        for r in rows:
            if r["kind"] == "ncu":
                kv = dict(x.split("=", 1) for x in r["note"].split(";") if "=" in x)
                kv["ms"], kv["dram"] = num(r["median_ms"]), num(r["bytes"])
                self.ncu[r["name"]] = kv

    def gbps(self, name):
        t, b = self.copy.get(name, (None, None))
        return b / t / 1e6 if t and b else None

    def median(self, plan):
        return self.time.get(plan, (None, "", ""))[0]


def header(prep_info, dev, prep_path, dev_path, command):
    d = os.path.dirname(prep_path) or "."
    print(f"# CGO 2015 Table 3 on {dev.info.get('device', 'an unknown device').split(',')[0]}"
          f" — {dev.info.get('date', '?')[:10]}")
    print()
    print(f"Device (nvidia-smi: name, driver, SM clock, max SM clock, memory clock, "
          f"persistence): {dev.info.get('device', '?')}. {dev.info.get('nvcc', '')}. "
          f"Clocks as the machine had them (not locked). Timing: {dev.info.get('runs', '?')}; "
          f"each median after 3 warm-ups, CUDA events, uninstrumented (coalcheck-gpu-launch's "
          f"`time` directive), the same arguments as the emulator's run.")
    print()
    print(f"The fixes were made on {prep_info.get('date', '?')}, {prep_info.get('host', '?')}, "
          f"{prep_info.get('coalcheck', '?')}; fix option {prep_info.get('fix option', '?')}.")
    print()
    print("Commands:")
    print()
    print(f"    bash bench/table3.sh prepare {d}          # here: coalcheck fix, launch plans")
    print(f"    {command or f'bash bench/table3.sh device {d}'}   # on the GPU, {d} carried")
    print(f"    python3 bench/table3-table.py {prep_path} {dev_path}")
    print()


def copy_line(dev):
    ref, kern = dev.gbps("memcpy_d2d"), dev.gbps("copy_kernel")
    if ref is None:
        print("No copy bandwidth was measured: the bandwidth columns are empty.")
    else:
        print(f"Copy bandwidth (reference): cudaMemcpyDeviceToDevice of 1 GiB, "
              f"{ref:.1f} GB/s (bytes read + written over the median time); a float4 copy "
              f"kernel: {kern:.1f} GB/s." if kern else f"Copy bandwidth: {ref:.1f} GB/s.")
    print()
    return ref


def fixes_table(prep):
    print("## The fixes (emulated here)")
    print()
    print("| case | kernel | shape | expected | transform (choice) | global sectors before -> "
          "after | verified | outputs | decide (s) | source candidates (sectors) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | ---: | --- |")
    for r in prep:
        b, a = num(r["sectors_before"]), num(r["sectors_after"])
        sect = f"{int(b):,}" if b is not None else "-"
        if a:
            sect += f" -> {int(a):,} ({b / a:.2f}x fewer)"
        what = (f"{r['transform']} ({r['choice']})" if r["status"] == "fixed"
                else r["status"])
        print(f"| {r['case']} | `{r['kernel']}` | {r['shape']} | {r['expected']} | {what} | "
              f"{sect} | {r['verified']} | {r['compare']} | {r['decide_s']} | "
              f"{r.get('candidates') or '-'} |")
    print()


def goals(r, speedup, frac, ratio):
    """The goals of issue 10 this case meets and misses, as text."""
    out = []
    paper = num(r["paper"])
    if paper and speedup:
        out.append(("met" if speedup >= paper else "MISSED") + f": >= paper's {paper:g}x")
    if r["bound"] == "mem" and frac is not None:
        out.append(("met" if frac >= BW_GOAL else "MISSED") + f": >= {BW_GOAL:.0%} of copy")
    if ratio is not None and r["vendor"].startswith(GEMV_SPECS):
        out.append(("met" if ratio <= VENDOR_GOAL else "MISSED") + f": <= {VENDOR_GOAL}x cuBLAS")
    return "; ".join(out) or "-"


def gpu_table(prep, dev, ref):
    print("## On the GPU")
    print()
    print("| case | original ms | fixed ms | speed-up | paper (K20) | original GB/s (% copy) "
          "| fixed GB/s (% copy) | cuBLAS ms | fixed / cuBLAS | goals |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    tally = {"met": 0, "MISSED": 0}
    for r in prep:
        c, ideal = r["case"], num(r["ideal_bytes"])
        to, tf = dev.median(c + ".orig"), dev.median(c + ".fixed")
        speedup = to / tf if to and tf else None

        def bw(t):
            if not (t and ideal):
                return "-", None
            g = ideal / t / 1e6
            frac = g / ref if ref else None
            return (f"{g:.0f} ({frac:.0%})" if frac is not None else f"{g:.0f}"), frac
        bo, _ = bw(to)
        bf, frac = bw(tf)
        vt, vcheck = dev.vendor.get(r["vendor"], (None, ""))
        ratio = tf / vt if tf and vt else None
        g = (goals(r, speedup, frac, ratio) if r["status"] == "fixed"
             else r["status"].split(":")[0] + " (the reason above)")
        for k in tally:
            tally[k] += g.count(k + ":")
        fixed_ms = ms(tf) if r["status"] == "fixed" else "no fix"
        vend = ms(vt) + ("" if vcheck in ("ok", "") else f" ({vcheck})") if vt else "-"
        print(f"| {c} | {ms(to)} | {fixed_ms} | {f'{speedup:.2f}x' if speedup else '-'} | "
              f"{r['paper'] + 'x' if num(r['paper']) else '-'} | {bo} | {bf} | {vend} | "
              f"{f'{ratio:.2f}' if ratio else '-'} | {g} |")
    print()
    print(f"Goals: {tally['met']} met, {tally['MISSED']} missed (of the fixed cases).")
    print()


def ncu_value(d, key):
    """One ncu figure of a plan: "l1" (global load + store sectors at L1), "l2_sectors",
    "dram" (bytes read + written); None when not measured."""
    if not d:
        return None
    if key == "l1":
        ld, st = num(d.get("ld_sectors")), num(d.get("st_sectors"))
        return ld + st if ld is not None and st is not None else None
    return num(d.get(key))


def arrow(o, f, scale=1.0, fmt="{:,.0f}"):
    one = lambda v: fmt.format(v / scale) if v is not None else "-"
    return f"{one(o)} -> {one(f)}"


def cache_table(prep, dev):
    """Emulated sector ratio against the measured time ratio and ncu's DRAM bytes: where
    the caches (Hopper: 256 KB L1 per SM, 50 MB L2) absorb an uncoalesced original's
    re-reads, the time falls far less than the sectors."""
    if not dev.ncu:
        return
    print("## What the caches absorb (Nsight Compute, one cold-cache launch each)")
    print()
    print("| case | emulated sectors ratio | time ratio | L1 global sectors orig -> fixed | "
          "L2 sectors orig -> fixed | DRAM MB orig -> fixed | ideal MB | note |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for r in prep:
        c = r["case"]
        o, f = dev.ncu.get(c + ".orig"), dev.ncu.get(c + ".fixed")
        if not o:
            continue
        b, a = num(r["sectors_before"]), num(r["sectors_after"])
        sr = b / a if b and a else None
        to, tf = dev.median(c + ".orig"), dev.median(c + ".fixed")
        tr = to / tf if to and tf else None
        ideal, dram = num(r["ideal_bytes"]), ncu_value(o, "dram")
        note = []
        if sr and tr and tr < sr / 2:
            note.append(f"time fell {tr:.1f}x for {sr:.1f}x fewer sectors")
        if ideal and ideal < L2_BYTES:
            note.append("the data fits in the 50 MB L2")
        elif dram and ideal and dram < 1.5 * ideal:
            note.append(f"the original's DRAM traffic is {dram / ideal:.2f}x the ideal: "
                        "its strided re-reads hit in L1/L2")
        print(f"| {c} | {f'{sr:.2f}x' if sr else '-'} | {f'{tr:.2f}x' if tr else '-'} | "
              f"{arrow(ncu_value(o, 'l1'), ncu_value(f, 'l1'))} | "
              f"{arrow(ncu_value(o, 'l2_sectors'), ncu_value(f, 'l2_sectors'))} | "
              f"{arrow(dram, ncu_value(f, 'dram'), 1e6, '{:.1f}')} | {ideal / 1e6:.1f} | "
              f"{'; '.join(note) or '-'} |")
    print()


def ideal_notes(prep):
    print("Ideal bytes per case (4 bytes an element; names are the launch's buffers, their "
          "element counts, and scalars): " +
          "; ".join(f"{r['case']} `{r['ideal_expr']}` = {num(r['ideal_bytes']) / 1e6:.1f} MB"
                    for r in prep) + ".")
    print()


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: bench/table3-table.py DIR/prepare.tsv OUT/table3.tsv [DEVICE_COMMAND]")
    prep = read_tsv(sys.argv[1])
    dev = Device(read_tsv(sys.argv[2]))
    prep_info = read_info(os.path.join(os.path.dirname(sys.argv[1]) or ".", "prepare.txt"))
    header(prep_info, dev, sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else "")
    ref = copy_line(dev)
    fixes_table(prep)
    gpu_table(prep, dev, ref)
    cache_table(prep, dev)
    ideal_notes(prep)


if __name__ == "__main__":
    main()
