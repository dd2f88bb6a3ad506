#!/usr/bin/env bash
# Where CUDA and CPU release numerics part: each main block's output streams and the logits of one prompt on both
# backends, compared block by block, then every op's outputs compared op by op (GPU machine, .device carried).
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib
OUT=${OUT:-/tmp/out}
ids=$(python3 -c "print(','.join(str((i * 37 + 11) % 1024) for i in range(24)))")
for b in cpu cuda; do
  .device/bin/plumb logits --ids "$ids" --backend $b --choices --streams-out "$OUT/streams-$b.bin" --out "$OUT/logits-$b.bin" --json "$OUT/logits-$b.json" \
    --ops-out "$OUT/ops-$b.bin" || exit 1
done
python3 - "$OUT" <<'PY'
import json, struct, sys
import numpy as np
out = sys.argv[1]
def rows(path):
    d = open(path, 'rb').read()
    magic, ver, dt, r, c = struct.unpack_from('<8sIIQQ', d, 0)
    return np.frombuffer(d[32:], dtype=np.float32).reshape(r, c)
a, b = rows(f'{out}/streams-cpu.bin'), rows(f'{out}/streams-cuda.bin')
n = 24
for L in range(a.shape[0] // n):
    x, y = a[L*n:(L+1)*n], b[L*n:(L+1)*n]
    rel = np.abs(x - y).max(axis=1) / np.abs(x).max(axis=1)
    print(f'block {L}: rel err by position: ' + ' '.join(f'{v:.1e}' for v in rel[:12]) + ' ...  max %.2e' % rel.max())
la, lb = rows(f'{out}/logits-cpu.bin'), rows(f'{out}/logits-cuda.bin')
rel = np.abs(la - lb).max(axis=1) / np.abs(la).max(axis=1)
print('logits rel err by position: ' + ' '.join(f'{v:.1e}' for v in rel))
ja, jb = json.load(open(f'{out}/logits-cpu.json')), json.load(open(f'{out}/logits-cuda.json'))
key = lambda c: (c['block'], c['position'], c.get('experts'), c.get('indexer_selected'))
ca, cb = [key(c) for c in ja['choices']], [key(c) for c in jb['choices']]
diff = [(p, q) for p, q in zip(ca, cb) if p != q]
print(f'choices: {len(ca)} records, {len(diff)} differ')
for p, q in diff[:5]:
    print('  cpu', p, '| cuda', q)
PY
python3 tools/compare_op_records.py "$OUT/ops-cpu.bin" "$OUT/ops-cuda.bin" > "$OUT/ops-diff.txt"
grep -B3 -A12 "first op past" "$OUT/ops-diff.txt"; tail -1 "$OUT/ops-diff.txt"
