"""Compares the inline counters of an instrumented run (src/ptx/instrument.c) with the
emulator's own per-instruction figures for the uninstrumented kernel (the oracle).

usage: ptxinst_compare.py REF.json MAP COUNTERS.bin KERNEL-MANGLED
REF.json: `coalcheck --json` of the original PTX; MAP: coalcheck-ptxinst's site table;
COUNTERS.bin: the --dump of the counter buffer after the instrumented run.
Per site of the kernel: requests, sectors (global) or wavefronts (shared), lanes
(thread_accesses), ideal sectors or wavefronts, for shared memory the largest
bank-conflict ways, and Algorithm 1's neighbour strides (count, min, max, sum) must be
equal.
Every explicit .global/.shared instruction of the reference must be a site; generic ones
are listed (not instrumented). Exit 0 when all equal, 1 otherwise."""
import json
import struct
import sys

FIELDS = 8  # requests, units, lanes, ways, ideal, span, UINT64_MAX - min stride, max stride
MAX = (1 << 64) - 1


def main():
    ref_path, map_path, bin_path, mangled = sys.argv[1:5]
    ref = json.load(open(ref_path))
    kernel = [k for k in ref["kernels"] if k["mangled_name"] == mangled][0]
    by_index = {i["ptx_index"]: i for i in kernel["instructions"]}
    lines = open(map_path).read().split("\n")
    head = lines[0].split()
    shards = int(head[1])
    raw = open(bin_path, "rb").read()
    counters = struct.unpack("<%dQ" % (len(raw) // 8), raw)
    bad = 0
    covered = set()
    for line in lines[1:]:
        if not line:
            continue
        site, func, insn, space, _kind, _size, _line = line.split()
        if func != mangled:
            continue
        site, insn = int(site), int(insn)
        got = [0] * FIELDS
        for sh in range(shards):
            base = (site * shards + sh) * FIELDS
            for f in range(FIELDS):
                if f in (3, 6, 7):
                    got[f] = max(got[f], counters[base + f])
                else:
                    got[f] += counters[base + f]
        # strides: count = lanes - requests, min, max, sum (the emulator's avg x count)
        count = got[2] - got[0]
        got = got[:5] + ([count, MAX - got[6], got[7], got[5]] if got[6] else [0, None, None, 0])
        r = by_index.get(insn)
        if r is None:  # never executed: the emulator lists no figures
            want = [0, 0, 0, 0, 0, 0, None, None, 0]
        else:
            units = r["wavefronts"] if space == "shared" else r["sectors"]
            ways = r.get("bank_conflict_ways", 0) if space == "shared" else 0
            ideal = r["ideal_wavefronts"] if space == "shared" else r["ideal_sectors"]
            st = r.get("stride") or {"count": 0}
            if st["count"]:
                strides = [st["count"], st["min"], st["max"], round(st["avg"] * st["count"])]
            else:
                strides = [0, None, None, 0]
            want = [r["requests"], units, r["thread_accesses"], ways, ideal] + strides
        covered.add(insn)
        if got != want:
            bad += 1
            print("DIFF %s site %d (PTX index %d, %s): inline %s, emulator %s "
                  "(requests, units, lanes, ways, ideal, strides, min, max, sum)"
                  % (mangled, site, insn, space, got, want))
    for i in kernel["instructions"]:
        if i["space"] not in ("global", "shared") or i["ptx_index"] in covered:
            continue
        op = i["ptx"].split()[0]
        if ".global" in op or ".shared" in op:
            bad += 1
            print("MISSING %s PTX index %d '%s': not instrumented" % (mangled, i["ptx_index"], i["ptx"]))
        else:
            print("generic %s PTX index %d '%s': not instrumented" % (mangled, i["ptx_index"], i["ptx"]))
    print("%s: %d site(s) compared, %d differ" % (mangled, len(covered), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
