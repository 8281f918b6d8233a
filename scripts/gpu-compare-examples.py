#!/usr/bin/env python3
"""Per source line, the emulator's figures against the GPU's, for every bundled example.

    python3 scripts/gpu-compare-examples.py DIR > table.md

DIR is what scripts/gpu-check-examples.sh made: DIR/emu/L.json (coalcheck's emulator
report, its per-line array "lines") and DIR/res/L.jit.json, L.cubin.json (the injection
library's reports, one per SASS instruction with its source line from nvdisasm -g).
Per line, both sides sum over their instructions: requests (warp-level executions, all
spaces), thread accesses (active lanes), global sectors and ideal sectors, shared
wavefronts and ideal wavefronts. Local memory (examples/local_array) gets rows of its
own, "FILE:LINE (local)": requests, lanes, sectors and ideal sectors of the local
instructions of that line, both sides counting sectors of the interleaved layout
(src/model/model.h cc_model_local_layout; src/gpu/patch.cu record()); the emulator's
per-line sums include local instructions, so its local figures are taken from its
instructions and subtracted from the line's. A GPU report whose local instructions have
no "sectors" (older reports gave wavefronts) leaves them "not compared". Lines are
matched by file base name and line number (the PTX's .file paths travel in the line info);
a GPU instruction inlined from a header counts on its call site ("inlined_at", from
nvdisasm -gi), as the emulator places it.
Every row is printed; "=" when all figures agree, else the figures that differ.
"""
import json
import os
import sys

FIELDS = ["requests", "thread_accesses", "sectors", "ideal_sectors", "wavefronts",
          "ideal_wavefronts"]


# figures of a local row (the others stay 0)
LOCAL_FIELDS = ["requests", "thread_accesses", "sectors", "ideal_sectors"]


def src_key(src):
    """(file base name, line) of a "source" object; ("?", 0) without line info."""
    if not src or not src.get("file"):
        return ("?", 0)
    return (os.path.basename(src["file"]), src.get("line") or 0)


def emu_lines(path):
    """Per (file, line, part) the emulator's sums; part "" for global and shared, "local"
    for local instructions (taken out of the line's sums)."""
    doc = json.load(open(path))
    out, ninsn = {}, {}
    for k in doc["kernels"]:
        for ln in k["lines"]:
            key = (os.path.basename(ln["file"]) if ln["file"] else "?", ln["line"] or 0, "")
            row = out.setdefault(key, dict.fromkeys(FIELDS, 0))
            for f in FIELDS:
                row[f] += ln[f]
            ninsn[key] = ninsn.get(key, 0) + ln["instructions"]
        for i in k["instructions"]:
            if i["space"] != "local":
                continue
            key = src_key(i["source"])
            lkey = key + ("local",)
            row = out.setdefault(lkey, dict.fromkeys(FIELDS, 0))
            line_row = out.setdefault(key + ("",), dict.fromkeys(FIELDS, 0))
            for f in LOCAL_FIELDS:
                row[f] += i[f]
                line_row[f] -= i[f]
            ninsn[lkey] = ninsn.get(lkey, 0) + 1
            ninsn[key + ("",)] = ninsn.get(key + ("",), 0) - 1
    # a line of local instructions only leaves an empty global row
    for key in [key for key, n in ninsn.items() if key[2] == "" and n == 0]:
        if not any(out[key].values()):
            del out[key], ninsn[key]
    return out, ninsn


def gpu_lines(path):
    doc = json.load(open(path))
    out, ninsn, local = {}, {}, 0
    for k in doc["kernels"]:
        for i in k["instructions"]:
            # code inlined from a header: its call site, as the emulator places it (the
            # library's nvdisasm -gi gives "inlined_at"; older reports have none)
            src = i.get("inlined_at") or i["source"]
            if i["space"] == "local" and "sectors" not in i:
                local += i["requests"]  # an older report: local in wavefronts
                continue
            key = src_key(src) + ("local" if i["space"] == "local" else "",)
            row = out.setdefault(key, dict.fromkeys(FIELDS, 0))
            row["requests"] += i["requests"]
            row["thread_accesses"] += i["lanes"]
            if i["space"] in ("global", "local"):
                row["sectors"] += i["sectors"]
                row["ideal_sectors"] += i["ideal_sectors"]
            else:
                row["wavefronts"] += i["wavefronts"]
                row["ideal_wavefronts"] += i["ideal_wavefronts"]
            ninsn[key] = ninsn.get(key, 0) + 1
    return out, ninsn, local, doc.get("device")


def fmt(n):
    return f"{n:,}"


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else "build-gpu-examples"
    names = sorted(f[:-5] for f in os.listdir(os.path.join(d, "emu")) if f.endswith(".json"))
    total = same = 0
    print("| launch | line | PTX/SASS insns | requests emu / gpu | lanes emu / gpu | "
          "sectors emu / gpu | ideal sectors emu / gpu | wavefronts emu / gpu | "
          "ideal wavefronts emu / gpu | cubin | result |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |")
    for n in names:
        emu, emu_n = emu_lines(os.path.join(d, "emu", n + ".json"))
        jit_path = os.path.join(d, "res", n + ".jit.json")
        if not os.path.exists(jit_path):
            print(f"| {n} | | | | | | | | | | no GPU result |")
            continue
        gpu, gpu_n, local, _ = gpu_lines(jit_path)
        cub_path = os.path.join(d, "res", n + ".cubin.json")
        cub = gpu_lines(cub_path)[0] if os.path.exists(cub_path) else None
        for key in sorted(set(emu) | set(gpu)):
            e = emu.get(key, dict.fromkeys(FIELDS, 0))
            g = gpu.get(key, dict.fromkeys(FIELDS, 0))
            diff = [f for f in FIELDS if e[f] != g[f]]
            total += 1
            same += not diff
            cells = [f"{fmt(e[f])} / {fmt(g[f])}" if e[f] != g[f] else fmt(e[f])
                     for f in FIELDS]
            c = "-" if cub is None else ("same" if cub.get(key) == gpu.get(key) else "differs")
            res = "=" if not diff else "differs: " + ", ".join(diff)
            where = f"{key[0]}:{key[1]}" + (" (local)" if key[2] else "")
            print(f"| {n} | {where} | {emu_n.get(key, 0)} / {gpu_n.get(key, 0)} | "
                  + " | ".join(cells) + f" | {c} | {res} |")
        if local:
            print(f"| {n} | (local) | | {local} GPU local requests not compared (no sectors "
                  "in this GPU report) | | | | | | | |")
    print(f"\n{same} of {total} rows agree in every figure.\n")
    # kernel-wide sums: a difference that only moves figures between lines (the
    # attribution of inlined code) vanishes here
    print("| launch | requests emu / gpu | lanes | sectors | ideal sectors | wavefronts | "
          "ideal wavefronts | result |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    ksame = 0
    for n in names:
        jit_path = os.path.join(d, "res", n + ".jit.json")
        if not os.path.exists(jit_path):
            continue
        e = dict.fromkeys(FIELDS, 0)
        g = dict.fromkeys(FIELDS, 0)
        for row in emu_lines(os.path.join(d, "emu", n + ".json"))[0].values():
            for f in FIELDS:
                e[f] += row[f]
        for row in gpu_lines(jit_path)[0].values():
            for f in FIELDS:
                g[f] += row[f]
        diff = [f for f in FIELDS if e[f] != g[f]]
        ksame += not diff
        cells = [f"{fmt(e[f])} / {fmt(g[f])}" if e[f] != g[f] else fmt(e[f]) for f in FIELDS]
        print(f"| {n} | " + " | ".join(cells) + " | " +
              ("=" if not diff else "differs: " + ", ".join(diff)) + " |")
    print(f"\n{ksame} of {len(names)} launches agree in every kernel-wide figure.")


if __name__ == "__main__":
    main()
