#!/usr/bin/env python3
"""coalcheck gpu: compare coalcheck's GPU report with Nsight Compute, and tabulate overhead.

usage: gpu-compare.py COALCHECK_JSON NCU_CSV OVERHEAD_TXT > table.md

NCU_CSV: `ncu --csv --print-kernel-base mangled --metrics ...` output; values of launches
of one kernel are summed (coalcheck sums its launches too). OVERHEAD_TXT: lines
"kernel mode ms_per_iteration wall_seconds" with mode native|coalcheck|memcheck.
"""
import csv
import json
import sys
from collections import defaultdict

# (row label, coalcheck (space, kind, field), ncu metric)
ROWS = [
    ("global ld requests", ("global", "load", "requests"), "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"),
    ("global ld sectors", ("global", "load", "sectors"), "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"),
    ("global st requests", ("global", "store", "requests"), "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"),
    ("global st sectors", ("global", "store", "sectors"), "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"),
    ("global atom requests", ("global", "atomic", "requests"), "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum"),
    ("global atom sectors", ("global", "atomic", "sectors"), "l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum"),
    ("global red requests", ("global", "reduction", "requests"), "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum"),
    ("global red sectors", ("global", "reduction", "sectors"), "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum"),
    ("shared ld requests", ("shared", "load", "requests"), "smsp__sass_inst_executed_op_shared_ld.sum"),
    ("shared ld wavefronts", ("shared", "load", "wavefronts"), "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"),
    ("shared ld bank conflicts", ("shared", "load", "bank_conflicts"), "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"),
    ("shared st requests", ("shared", "store", "requests"), "smsp__sass_inst_executed_op_shared_st.sum"),
    ("shared st wavefronts", ("shared", "store", "wavefronts"), "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"),
    ("shared st bank conflicts", ("shared", "store", "bank_conflicts"), "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"),
    # local memory (LDL/STL): 32-byte sectors of the interleaved local layout
    ("local ld requests", ("local", "load", "requests"), "l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum"),
    ("local ld sectors", ("local", "load", "sectors"), "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum"),
    ("local st requests", ("local", "store", "requests"), "l1tex__t_requests_pipe_lsu_mem_local_op_st.sum"),
    ("local st sectors", ("local", "store", "sectors"), "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum"),
]


def cc_figure(kernel, sp, kd, field):
    """coalcheck's per-kernel figure, or None when its JSON does not have it.

    First the kernel totals (totals[space][kind][field], as src/gpu/report.c writes
    them); else, for local memory, the sum of `field` over the instructions whose space
    is "local" and kind is kd (a JSON whose local totals carry wavefronts instead of
    sectors still has per-instruction figures if the library reports local sectors
    there). None when neither place has the field: printed as n/a, counted as missing.
    """
    t = kernel.get("totals", {}).get(sp, {}).get(kd, {})
    if field in t:
        return t[field]
    if sp != "local":
        return 0 if sp in kernel.get("totals", {}) else None
    insns = [i for i in kernel.get("instructions", [])
             if i.get("space") == sp and i.get("kind") == kd]
    if not insns:
        return 0  # no local instruction of this kind executed: nothing to count
    if any(field not in i for i in insns):
        return None
    return sum(i[field] for i in insns)


def num(s):
    s = s.replace(",", "").strip()
    try:
        return float(s)
    except ValueError:
        return None


def load_ncu(path):
    per = defaultdict(lambda: defaultdict(float))
    with open(path, newline="") as f:
        lines = [l for l in f if l.startswith('"')]  # skip ==PROF== lines
    for r in csv.DictReader(lines):
        v = num(r.get("Metric Value", ""))
        if v is not None:
            per[r["Kernel Name"]][r["Metric Name"]] += v
    return per


def main():
    rep = json.load(open(sys.argv[1]))
    ncu = load_ncu(sys.argv[2])
    print("| kernel | figure | coalcheck | ncu | match |")
    print("| --- | --- | ---: | ---: | --- |")
    n_ok = n_bad = n_close = n_missing = 0
    for k in rep["kernels"]:
        m = k["mangled"]
        if m.startswith("_Z10init_bytes"):
            continue
        nk = ncu.get(m)
        for label, (sp, kd, field), metric in ROWS:
            cc = cc_figure(k, sp, kd, field)
            nv = nk.get(metric) if nk else None
            if not cc and not nv:
                continue
            if cc is None:
                n_missing += 1
                nvs = "n/a" if nv is None else f"{int(nv):,}"
                print(f"| {k['name']} | {label} | n/a | {nvs} | **MISSING** (no `{field}` for "
                      f"{sp} {kd} in coalcheck's JSON) |")
                continue
            ok = nv is not None and int(nv) == cc
            # ncu's shared wavefront and bank-conflict counters carry a few per cent of
            # extra wavefronts that no access pattern explains (conflict-free stores
            # show conflicts): within 10% is reported as close, not as a match
            wav = nk.get(metric.replace("data_bank_conflicts_pipe_lsu_mem_shared",
                                        "data_pipe_lsu_wavefronts_mem_shared"), 0) if nk else 0
            close = bool(not ok and nv is not None and label.startswith("shared") and
                         ("wavefronts" in label or "conflicts" in label) and
                         abs(nv - cc) <= 0.10 * wav)
            n_ok += ok
            n_close += bool(close)
            n_bad += not ok and not close
            nvs = "n/a" if nv is None else f"{int(nv):,}"
            verdict = "match" if ok else (f"close (ncu {nv - cc:+,.0f} = {(nv - cc) / max(wav, 1) * 100:+.1f}% of its wavefronts)" if close else "**MISMATCH**")
            print(f"| {k['name']} | {label} | {cc:,} | {nvs} | {verdict} |")
    print(f"\n{n_ok} rows match exactly, {n_close} are close (shared-memory counters, see note), {n_bad} differ"
          + (f", {n_missing} have no coalcheck figure" if n_missing else "") + ".\n")
    if len(sys.argv) > 3:
        ov = defaultdict(dict)
        for line in open(sys.argv[3]):
            p = line.split()
            if len(p) == 4:
                ov[p[0]][p[1]] = (float(p[2]), float(p[3]))
        print("| kernel | native ms/iter | patched, callbacks off | reduce, no counters | counters, no flag/touched bits | coalcheck | coalcheck, global only | memcheck | wall s native / coalcheck / memcheck |")
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
        for k, d in ov.items():
            nat = d.get("native", (0, 0))
            def cell(mode):
                v = d.get(mode, (0, 0))
                sl = f"{v[0] / nat[0]:.1f}x" if nat[0] > 0 else "n/a"
                return f"{v[0]:.4f} ({sl})"
            print(f"| {k} | {nat[0]:.4f} | {cell('off')} | {cell('noatomics')} | {cell('nobits')} | {cell('coalcheck')} | {cell('global')} | "
                  f"{cell('memcheck')} | {nat[1]:.2f} / {d.get('coalcheck', (0, 0))[1]:.2f} / "
                  f"{d.get('memcheck', (0, 0))[1]:.2f} |")


if __name__ == "__main__":
    main()
