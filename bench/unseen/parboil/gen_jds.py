#!/usr/bin/env python3
"""bench/unseen/parboil/gen_jds.py: the sparse matrix of spmv_jds.launch and spmv_csr.launch
(dim = 1024 rows, 4..35 nonzeros a row from a fixed seed, sorted by length for JDS):
jds_ptr.bin, jds_zcnt.bin (longest row per block of 128), jds_index.bin, jds_perm.bin,
and in CSR: csr_rowptr.bin, csr_col.bin (s32, little-endian). The values come from the
launch files' `random` fills (jds and csr value arrays are both 36 * 1024 floats)."""
import random, struct

dim, block, cap = 1024, 128, 36 * 1024
rng = random.Random(7)
lens = [rng.randint(4, 35) for _ in range(dim)]
cols = [sorted(rng.sample(range(dim), n)) for n in lens]
perm = sorted(range(dim), key=lambda r: -lens[r])  # JDS row i is original row perm[i]
maxlen = lens[perm[0]]
ptr, index, pos = [], [0] * cap, 0
for k in range(maxlen):
    ptr.append(pos)
    for i in range(dim):
        if lens[perm[i]] > k:
            index[pos + i] = cols[perm[i]][k]
    pos += dim  # a full diagonal per k (padded): row i's k-th entry at ptr[k] + i
zcnt = [lens[perm[b * block]] for b in range(dim // block)]
rowptr, col = [0], []
for r in range(dim):
    col += cols[r]
    rowptr.append(len(col))
col += [0] * (cap - len(col))
w = lambda f, v, n: open(f, 'wb').write(struct.pack(f'<{n}i', *(v + [0] * (n - len(v)))))
w('jds_ptr.bin', ptr, 64)
w('jds_zcnt.bin', zcnt, dim // block)
w('jds_index.bin', index, cap)
w('jds_perm.bin', perm, dim)
w('csr_rowptr.bin', rowptr, dim + 1)
w('csr_col.bin', col, cap)
