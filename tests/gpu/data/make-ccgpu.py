#!/usr/bin/env python3
"""Writes the hand-made GPU traces of tests/e2e/gpu_trace.sh (layout: src/gpu/trace.c,
records: struct cc_gpu_wrec in src/gpu/layout.h). Run from the repository root:
    python3 tests/gpu/data/make-ccgpu.py
copy1.ccgpu: one function copy (20 slots) with one instruction at slot 3 (LDG.E, load,
global, 4 bytes, copy.cu:7), one launch (grid 1, block 32), one record: a full warp, lane l
at 0x1000 + 4 l, in the affine form (base 0x1000, stride 4).
copy1-demangled.ccgpu: the same, the function named by its demangled signature, as the
library names it."""
import struct


def s(text):
    if text is None:
        return struct.pack('<I', 0xffffffff)
    b = text.encode()
    return struct.pack('<I', len(b)) + b


def trace(name):
    out = b'CCGPUTR2' + struct.pack('<I', 1)
    out += s(name) + s('_Z4copyPfPKf') + struct.pack('<II', 20, 1)
    # slot, kind (load), space (global), size, line, inlined line; sass, file, inl file
    out += struct.pack('<6I', 3, 0, 0, 4, 7, 0)
    out += s('LDG.E R2, desc[UR4][R2.64]') + s('copy.cu') + s(None)
    out += struct.pack('<I', 1) + struct.pack('<8I', 0, 1, 1, 1, 32, 1, 1, 1)
    # info: size 4 | space 0 << 8 | flags READ (1) << 16 | warp 0 << 24
    rec = struct.pack('<IIIIIiQ', 4 | (1 << 16), 0, 3, 0, 0xffffffff, 4, 0x1000)
    return out + struct.pack('<QQ', 1, len(rec)) + rec


for path, name in (('tests/gpu/data/copy1.ccgpu', 'copy'),
                   ('tests/gpu/data/copy1-demangled.ccgpu', 'copy(float*, float const*)')):
    with open(path, 'wb') as f:
        f.write(trace(name))
