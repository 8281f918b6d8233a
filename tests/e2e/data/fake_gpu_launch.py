#!/usr/bin/env python3
"""A stand-in for coalcheck-gpu-launch (src/gpu/launch.c) for tests/e2e/gpu_inline.sh: runs
a launch plan's module in the emulator ($COALCHECK) instead of on a GPU, with the same
parameters and dumps, so that `--backend gpu --gpu-mode inline` runs end to end without
one. Scalars are decoded by the .entry's parameter types; buffers keep their specs."""
import os
import re
import struct
import subprocess
import sys

FORMATS = {"u8": "<B", "s8": "<b", "u16": "<H", "s16": "<h", "u32": "<I", "s32": "<i",
           "b32": "<I", "u64": "<Q", "s64": "<q", "b64": "<Q", "f32": "<f", "f64": "<d"}


def main():
    plan = sys.argv[1]
    folder = os.path.dirname(os.path.abspath(plan))
    cmd, module, kernel, params = [os.environ["COALCHECK"], "-q"], None, None, []
    for line in open(plan).read().split("\n"):
        w = line.split(" ")
        if w[0] == "module":
            module = os.path.join(folder, w[1])
        elif w[0] == "kernel":
            kernel = w[1]
        elif w[0] in ("grid", "block"):
            cmd += ["--" + w[0], ",".join(w[1:4])]
        elif w[0] == "shared" and w[1] != "0":
            cmd += ["--shared", w[1]]
        elif w[0] == "param":
            params.append(w[2:])
        elif w[0] == "dump":
            path = w[2] if w[2].startswith("/") else os.path.join(folder, w[2])
            cmd += ["--dump", "%s=%s" % (w[1], path)]
    ptx = open(module).read()
    head = re.search(r"\.entry\s+" + re.escape(kernel) + r"\s*\((.*?)\)", ptx, re.S).group(1)
    types = re.findall(r"\.param\s+(?:\.align\s+\d+\s+)?\.(\w+)", head)
    for (kind, *rest), t in zip(params, types):
        if kind == "buffer":
            cmd += ["--arg", rest[1]]
        else:
            v = struct.unpack(FORMATS[t], bytes.fromhex(rest[0]))[0]
            cmd += ["--arg", repr(v)]
    cmd += [module, "--kernel", kernel]
    return subprocess.call(cmd, stdout=subprocess.DEVNULL)


if __name__ == "__main__":
    sys.exit(main())
