#!/usr/bin/env python3
"""Writes small but valid .cctrace files that ask the reader and the analysis for a lot
of memory (issue 13, item 4). Format: docs/trace-format.md. The zstd frames are written
by hand with raw and RLE blocks (RFC 8878, 3.1.1), so no zstd module is needed: an RLE
block repeats one byte up to 128 KiB for 4 bytes of file.

usage: hostile_trace.py KIND OUT [N]
  footprint N  one kernel, one load, then N one-byte records (flags 00: every field
               predicted) whose 32 lanes land on new, far-apart addresses each time
  insns N      one kernel whose table has N instructions of 10 zero bytes each
  kernels N    N kernels without instructions, each in its own block
  kernels-one-block N
               N kernels without instructions, all in one block (the writer never does
               that: a kernel table opens a block)
  string N     a kernel name of N bytes
  lines N      one kernel of N loads on N different lines of one file, each run once
  fields N     one kernel of N loads on one line, each run once, reading every other
               float of one array (a lane stride of 8 bytes: an array of structures),
               at alternating offsets: N instructions that are each other's fields
"""
import struct
import sys
import zlib

RLE_MAX = 128 * 1024


def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def zz(d):
    d &= (1 << 64) - 1
    return varint(((d << 1) ^ (0 - (d >> 63))) & ((1 << 64) - 1))


def zstd_frame(pieces):
    """A zstd frame whose content is the concatenation of pieces, each either bytes
    (stored raw) or (byte, count) (stored as RLE blocks)."""
    total = sum(len(p) if isinstance(p, bytes) else p[1] for p in pieces)
    blocks = []
    for p in pieces:
        if isinstance(p, bytes):
            for i in range(0, len(p), RLE_MAX):
                part = p[i:i + RLE_MAX]
                blocks.append((0, len(part), part))
        else:
            byte, count = p
            while count:
                n = min(count, RLE_MAX)
                blocks.append((1, n, bytes([byte])))
                count -= n
    # magic, descriptor: 4-byte content size, single segment (no window descriptor)
    out = bytearray(struct.pack("<IB", 0xFD2FB528, 0xA0) + struct.pack("<I", total))
    for i, (btype, size, data) in enumerate(blocks):
        last = 1 if i == len(blocks) - 1 else 0
        h = last | btype << 1 | size << 3
        out += struct.pack("<I", h)[:3] + data
    return bytes(out), total


class Trace:
    def __init__(self):
        strs = [b"coalcheck hostile", b"2026-11-22T00:00:00Z", b"hostile_trace.py"]
        payload = b"".join(struct.pack("<I", len(s)) + s for s in strs)
        head = b"\x89CCT\r\n\x1a\n" + struct.pack("<HHI", 1, 0, len(payload)) + payload
        self.out = bytearray(head + struct.pack("<I", zlib.crc32(head)))
        self.kernels = self.records = self.blocks = self.raw = 0

    def block(self, tag, stored, raw_len, events):
        h = tag + struct.pack("<III", raw_len, len(stored), events)
        self.out += h + struct.pack("<I", zlib.crc32(h + stored)) + stored

    def data(self, pieces, events, kernels=0, records=0):
        frame, raw = zstd_frame(pieces)
        self.block(b"CCBD", frame, raw, events)
        self.blocks += 1
        self.raw += raw
        self.kernels += kernels
        self.records += records

    def finish(self, path):
        end = struct.pack("<QQQQQ", self.kernels, self.records, self.blocks, self.raw,
                          len(self.out))
        self.block(b"CCBE", end, len(end), 0)
        with open(path, "wb") as f:
            f.write(self.out)


def kernel(name=b"k", insns=()):
    """insns: sizes (id 0, load, global, no strings, line 0), or (id, size, line) tuples
    in file "f.cu"."""
    out = bytearray(b"\x80\x02" + varint(len(name) + 1) + name + b"\x00")
    out += varint(1) * 3 + varint(32) + varint(1) * 2 + varint(len(insns))
    for e in insns:
        if isinstance(e, int):
            out += b"\x00\x00\x00" + varint(e) + b"\x00" * 6
        else:
            iid, size, line = e
            out += varint(iid) + b"\x00\x00" + varint(size) + b"\x00\x05f.cu"
            out += varint(line) + b"\x00\x00\x00"
    return bytes(out)


def run_each(n, base, stride):
    """One record per slot 0..n-1, all lanes: MODE 2 with the given stride and base(i)
    (each is its slot's first record: the predicted base is 0)."""
    out = bytearray()
    for i in range(n):
        out += bytes([1 | 2 << 5]) + varint(i) + zz(stride) + zz(base(i))
    return bytes(out)


END = b"\x80\x03"


def main():
    kind, path = sys.argv[1], sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    t = Trace()
    if kind == "footprint":
        # first record: MODE 2, stride 4099 bytes, base 1048583 (coprime: granularity 1);
        # then flags 00 = MODE 0: base advances by the same 1048583, lanes 4099 apart
        first = bytes([2 << 5]) + zz(4099) + zz(1048583)
        t.data([kernel(insns=[4]), first, (0, n), END], 3 + n, kernels=1, records=1 + n)
    elif kind == "insns":
        t.data([kernel()[:-1] + varint(n), (0, 10 * n), END], 2, kernels=1)
    elif kind == "kernels":
        for _ in range(n):
            t.data([kernel(), END], 2, kernels=1)
    elif kind == "kernels-one-block":
        t.data([(kernel() + END) * n], 2 * n, kernels=n)
    elif kind == "string":
        t.data([b"\x80\x02" + varint(n + 1), (ord("k"), n), kernel()[4:], END], 2, kernels=1)
    elif kind == "lines":
        t.data([kernel(insns=[(i, 4, i + 1) for i in range(n)]),
                run_each(n, lambda i: 0x100000 + 128 * i, 4), END], 2 + n, kernels=1, records=n)
    elif kind == "fields":
        t.data([kernel(insns=[(i, 4, 7) for i in range(n)]),
                run_each(n, lambda i: 0x100000 + 4 * (i % 2), 8), END], 2 + n, kernels=1,
               records=n)
    else:
        sys.exit("hostile_trace.py: unknown kind " + kind)
    t.finish(path)


if __name__ == "__main__":
    main()
