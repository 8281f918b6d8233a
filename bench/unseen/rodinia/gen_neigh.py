#!/usr/bin/env python3
# The neighbour lists of md*.launch: 2048 atoms on a line, atom i's j-th neighbour
# (i + d_j) mod 2048 with d_j = +-1, +-2, ..., +-8 (16 neighbours, as a spatially sorted
# MD list), written row-major (neigh_rowmajor.bin, [i * 16 + j]) and neighbour-major
# (neigh_colmajor.bin, [j * 2048 + i]) as little-endian int32.
import struct
N, K = 2048, 16
d = [s * k for k in range(1, 9) for s in (1, -1)]
row = [(i + d[j]) % N for i in range(N) for j in range(K)]
col = [(i + d[j]) % N for j in range(K) for i in range(N)]
open("neigh_rowmajor.bin", "wb").write(struct.pack("<%di" % len(row), *row))
open("neigh_colmajor.bin", "wb").write(struct.pack("<%di" % len(col), *col))
