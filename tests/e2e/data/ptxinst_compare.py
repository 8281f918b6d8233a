"""Compares the inline counters of an instrumented run (src/ptx/instrument.c) with the
emulator's own per-instruction figures for the uninstrumented kernel (the oracle).

usage: ptxinst_compare.py REF.json MAP COUNTERS.bin KERNEL-MANGLED
REF.json: `coalcheck --json` of the original PTX; MAP: coalcheck-ptxinst's site table;
COUNTERS.bin: the --dump of the counter buffer after the instrumented run.
Per site of the kernel: requests, sectors (global) or wavefronts (shared), lanes
(thread_accesses), ideal sectors or wavefronts, for shared memory the largest
bank-conflict ways, and Algorithm 1's neighbour strides (count, min, max, sum) must be
equal.
Generic instructions (three sites: global, shared, local) are summed per instruction, as
the emulator reports them (one row, sectors of the global and local records, wavefronts of
the shared ones). Every executed memory instruction of the reference must be a site. Exit 0 when all equal, 1 otherwise."""
import json
import struct
import sys

FIELDS = 8  # requests, units, lanes, ways, ideal, span, UINT64_MAX - min stride, max stride
MAX = (1 << 64) - 1


def main():
    ref_path, map_path, bin_path, mangled = sys.argv[1:5]
    ref = json.load(open(ref_path))
    kernel = [k for k in ref["kernels"] if k["mangled_name"] == mangled][0]
    # a .func's instructions have indexes of its own body: the text tells them apart
    by_index = {(i["ptx_index"], i["ptx"]): i for i in kernel["instructions"]}
    lines = open(map_path).read().split("\n")
    head = lines[0].split()
    shards = int(head[1])
    raw = open(bin_path, "rb").read()
    counters = struct.unpack("<%dQ" % (len(raw) // 8), raw)
    bad = 0
    covered = set()
    per_insn = {}  # PTX index -> figures summed over its sites (a generic one has three)
    for line in lines[1:]:
        if not line or line.startswith("skip "):
            continue
        site, func, insn, space, _kind, size, _line, _generic, _body, text = line.split(None, 9)
        if func != mangled:
            continue
        site, size = int(site), int(size)
        insn = (int(insn), text)
        got = [0] * FIELDS
        for sh in range(shards):
            base = (site * shards + sh) * FIELDS
            for f in range(FIELDS):
                if f in (3, 6, 7):
                    got[f] = max(got[f], counters[base + f])
                else:
                    got[f] += counters[base + f]
        words = size // 4 if space == "local" and size > 4 else 1
        a = per_insn.setdefault(insn, {"requests": 0, "sectors": 0, "wavefronts": 0,
                                       "lanes": 0, "ways": 0, "ideal_sectors": 0,
                                       "ideal_wavefronts": 0, "count": 0, "min": None,
                                       "max": None, "sum": 0, "spaces": []})
        a["spaces"].append(space)
        a["requests"] += got[0]
        a["wavefronts" if space == "shared" else "sectors"] += got[1]
        a["ideal_wavefronts" if space == "shared" else "ideal_sectors"] += got[4]
        a["lanes"] += got[2]
        a["ways"] = max(a["ways"], got[3])
        if got[6]:  # strides: count = lanes - executions, min, max, sum
            a["count"] += got[2] - got[0] // words
            a["min"] = MAX - got[6] if a["min"] is None else min(a["min"], MAX - got[6])
            a["max"] = got[7] if a["max"] is None else max(a["max"], got[7])
            a["sum"] += got[5]
    for insn, a in sorted(per_insn.items()):
        got = [a["requests"], a["sectors"], a["wavefronts"], a["lanes"], a["ways"],
               a["ideal_sectors"], a["ideal_wavefronts"], a["count"], a["min"], a["max"],
               a["sum"]]
        r = by_index.get(insn)
        if r is None:  # never executed: the emulator lists no figures
            want = [0] * 8 + [None, None, 0]
        else:
            st = r.get("stride") or {"count": 0}
            if st["count"]:
                strides = [st["count"], st["min"], st["max"], round(st["avg"] * st["count"])]
            else:
                strides = [0, None, None, 0]
            want = [r["requests"], r.get("sectors", 0), r.get("wavefronts", 0),
                    r["thread_accesses"],
                    r.get("bank_conflict_ways", 0) if r.get("wavefronts") else 0,
                    r.get("ideal_sectors", 0), r.get("ideal_wavefronts", 0)] + strides
        covered.add(insn)
        if got != want:
            bad += 1
            print("DIFF %s PTX index %s (%s): inline %s, emulator %s (requests, sectors, "
                  "wavefronts, lanes, ways, ideal sectors, ideal wavefronts, strides, min, "
                  "max, sum)" % (mangled, insn, "+".join(a["spaces"]), got, want))
    for i in kernel["instructions"]:
        if (i["ptx_index"], i["ptx"]) in covered:
            continue
        bad += 1  # every executed ld/st/atom/red of the kernel's own body is a site now
        print("MISSING %s PTX index %d '%s': not instrumented" % (mangled, i["ptx_index"], i["ptx"]))
    print("%s: %d site(s) compared, %d differ" % (mangled, len(covered), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
