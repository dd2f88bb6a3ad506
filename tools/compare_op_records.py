#!/usr/bin/env python3
"""Compares two `plumb logits --ops-out` recordings of the same token sequence op by op (e.g. CPU and CUDA release
numerics) and prints each op's worst relative difference, flagging the first op past --flag; index outputs
(route.ids, indexer_topk.selected) are compared exactly."""
import argparse, struct, sys
import numpy as np

def read(path):
    d = open(path, 'rb').read()
    (count,), at, out = struct.unpack_from('<Q', d, 0), 8, []
    for _ in range(count):
        (n,) = struct.unpack_from('<I', d, at); at += 4
        name = d[at:at + n].decode(); at += n
        rows, cols = struct.unpack_from('<QQ', d, at); at += 16
        v = np.frombuffer(d, dtype=np.float32, count=rows * cols, offset=at).reshape(rows, cols); at += 4 * rows * cols
        out.append((name, v))
    return out

ap = argparse.ArgumentParser()
ap.add_argument('a'); ap.add_argument('b')
ap.add_argument('--flag', type=float, default=2e-2, help='relative difference that marks an op as parted')
ap.add_argument('--show', type=int, default=400, help='ops to list')
args = ap.parse_args()
A, B = read(args.a), read(args.b)
if len(A) != len(B):
    print(f'op counts differ: {len(A)} vs {len(B)}; comparing the common prefix')
first = None
for i, ((na, x), (nb, y)) in enumerate(zip(A, B)):
    if na != nb or x.shape != y.shape:
        print(f'{i:5d} op sequence parts: {na}{x.shape} vs {nb}{y.shape}'); break
    if na.endswith('.ids') or na.endswith('.selected'):
        bad = int((x != y).sum())
        line, parted = f'{bad} of {x.size} differ', bad > 0
    else:
        fin = np.isfinite(x) & np.isfinite(y)
        nonfin = int((np.isfinite(x) != np.isfinite(y)).sum())
        scale = max(float(np.abs(x[fin]).max()) if fin.any() else 0.0, 1e-30)
        rel = float(np.abs(x[fin] - y[fin]).max()) / scale if fin.any() else 0.0
        rows = np.abs(x - y).max(axis=1) / scale if x.size else np.zeros(0)
        worst_row = int(np.nanargmax(rows)) if rows.size else -1
        line, parted = f'rel {rel:.2e} (worst row {worst_row}) nonfinite-mismatch {nonfin}', rel > args.flag or nonfin > 0
    mark = ''
    if parted and first is None:
        first, mark = i, '   <== first op past the flag'
    if i < args.show or mark:
        print(f'{i:5d} {na:24s} {str(x.shape):12s} {line}{mark}')
print(f'first parted op: {first}' if first is not None else 'no op parted')
