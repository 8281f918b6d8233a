#!/usr/bin/env python3
"""Tabulates bench/gpu-inline-generic.sh: per kernel of tests/gpu/apps/generic.cu and per
(space, kind), the requests and sectors (shared: wavefronts) of the inline counters
(inline.json), of the revision before (inline-main.json, when present), of the Sanitizer
path (sanitizer.json) and of Nsight Compute (ncu.csv), and whether inline equals ncu.

usage: gpu-inline-generic.py OUT DEVICE > table.md
Each JSON's instructions are summed by their "space" and "kind"; a generic instruction
that the inline counters split by space (one object per space) counts in each space; the
Sanitizer path reports such an instruction once, under its first space, with the other
space's figures added in (its README: one SASS slot)."""
import csv
import json
import os
import sys
from collections import defaultdict

ROWS = [  # (space, kind, figure, ncu metric)
    ("global", "load", "requests", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"),
    ("global", "load", "sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"),
    ("global", "store", "requests", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"),
    ("global", "store", "sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"),
    ("local", "load", "requests", "l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum"),
    ("local", "load", "sectors", "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum"),
    ("local", "store", "requests", "l1tex__t_requests_pipe_lsu_mem_local_op_st.sum"),
    ("local", "store", "sectors", "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum"),
    ("shared", "load", "requests", None),
    ("shared", "load", "wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"),
    ("shared", "store", "requests", None),
    ("shared", "store", "wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"),
]


def sums(path):
    """{kernel mangled name: {(space, kind, figure): value}}, or None without the file."""
    if not os.path.exists(path):
        return None
    out = defaultdict(lambda: defaultdict(int))
    try:
        doc = json.load(open(path))
    except ValueError:
        return None
    for k in doc.get("kernels", []):
        for i in k["instructions"]:
            for fig in ("requests", "sectors", "wavefronts"):
                if fig in i:
                    out[k["mangled"]][(i["space"], i["kind"], fig)] += i[fig]
    return out, doc.get("notes", [])


def load_ncu(path):
    per = defaultdict(lambda: defaultdict(float))
    if not os.path.exists(path):
        return per
    with open(path, newline="") as f:
        lines = [l for l in f if l.startswith('"')]
    for r in csv.DictReader(lines):
        try:
            v = float(r.get("Metric Value", "").replace(",", ""))
        except ValueError:
            continue
        per[r["Kernel Name"]][r["Metric Name"]] += v
    return per


def main():
    out, device = sys.argv[1], sys.argv[2]
    inl = sums(os.path.join(out, "inline.json"))
    old = sums(os.path.join(out, "inline-main.json"))
    san = sums(os.path.join(out, "sanitizer.json"))
    ncu = load_ncu(os.path.join(out, "ncu.csv"))
    print(f"Device: {device}. App: tests/gpu/apps/generic.cu (5 kernels, 64 CTAs x 128 "
          "threads, one launch each). inline = libcoalcheck_inline.so exact; before = the "
          "same of the revision before; sanitizer = libcoalcheck_gpu.so exact; ncu = "
          "Nsight Compute's l1tex counters.\n")
    print("| kernel | space kind figure | inline | before | sanitizer | ncu | inline = ncu |")
    print("| --- | --- | ---: | ---: | ---: | ---: | --- |")
    kernels = sorted(set(inl[0]) if inl else set())
    ok = bad = 0
    for k in kernels:
        if k.startswith("_Z10bench_fill"):
            continue
        for sp, kd, fig, metric in ROWS:
            key = (sp, kd, fig)
            vi = inl[0][k].get(key, 0)
            vo = old[0].get(k, {}).get(key, 0) if old else None
            vs = san[0].get(k, {}).get(key, 0) if san else None
            vn = ncu.get(k, {}).get(metric) if metric else None
            if not any([vi, vo, vs, vn]):
                continue
            same = "" if vn is None else ("yes" if int(vn) == vi else "**no**")
            ok += same == "yes"
            bad += same == "**no**"
            cell = lambda v: "n/a" if v is None else f"{int(v):,}"
            print(f"| {k} | {sp} {kd} {fig} | {cell(vi)} | {cell(vo)} | {cell(vs)} | "
                  f"{cell(vn)} | {same} |")
    print(f"\ninline = ncu on {ok} rows, differs on {bad}.\n")
    for name, s in (("inline", inl), ("before", old), ("sanitizer", san)):
        if s and s[1]:
            print(f"Notes of {name}: " + "; ".join(s[1]) + "\n")


if __name__ == "__main__":
    main()
