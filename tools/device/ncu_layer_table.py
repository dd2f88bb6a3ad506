#!/usr/bin/env python3
"""One layer's kernels from an ncu CSV of `plumb synth --only layers` (every kernel alone, gpu__time_duration).

  PLUMB_CUDA_GRAPHS=0 ncu --launch-count 130 --csv --metrics gpu__time_duration.sum \
      plumb synth --only layers --rows 1 --repeats 1 --config CFG | gzip > layer.csv.gz
  python3 tools/device/ncu_layer_table.py layer.csv.gz [--list] [--json out.json]

A layer is the span from one hc_mix_kernel to the one two after it (each layer mixes twice: before attention and
before the experts), taken after synth's warm-up copies. Prints the layer's kernels grouped by name, largest total
first, with the sum; --list also prints them in launch order.
"""
import argparse
import collections
import csv
import gzip
import io
import json
import sys


def short_name(kernel):
    name = kernel.split('(')[0].replace('void ', '')
    for prefix in ('plumb::cuda::ops::', 'plumb::cuda::', '(anonymous namespace)::', '<unnamed>::', 'unnamed>::',
                   'ops::'):
        name = name.replace(prefix, '')
    return name


def read_kernels(path):
    opener = gzip.open if path.endswith('.gz') else open
    with opener(path, 'rt') as f:
        lines = [line for line in f if line.startswith('"')]  # ncu's own messages are not quoted
    rows = csv.DictReader(io.StringIO(''.join(lines)))
    kernels = []
    for r in rows:
        if r.get('Metric Name') != 'gpu__time_duration.sum':
            continue
        scale = {'ns': 1e-3, 'us': 1.0, 'usecond': 1.0, 'ms': 1e3, 'msecond': 1e3}.get(r['Metric Unit'], None)
        if scale is None:
            sys.exit(f'ncu_layer_table: unknown time unit {r["Metric Unit"]!r}')
        kernels.append((short_name(r['Kernel Name']), float(r['Metric Value'].replace(',', '')) * scale,
                        r.get('Grid Size', ''), r.get('Block Size', '')))
    return kernels


def one_layer(kernels):
    mixes = [i for i, k in enumerate(kernels) if k[0] == 'hc_mix_kernel']
    if len(mixes) < 3:
        sys.exit(f'ncu_layer_table: {len(mixes)} hc_mix launches; a layer needs three (raise --launch-count)')
    return kernels[mixes[0]:mixes[2]]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('csv', help='ncu --csv output, optionally gzipped')
    ap.add_argument('--list', action='store_true', help='also list the kernels in launch order')
    ap.add_argument('--json', help='write the layer and its groups as JSON')
    a = ap.parse_args()
    layer = one_layer(read_kernels(a.csv))
    groups = collections.OrderedDict()
    for name, us, _, _ in layer:
        g = groups.setdefault(name.split('<')[0], [0, 0.0])
        g[0] += 1
        g[1] += us
    total = sum(us for _, us, _, _ in layer)
    if a.list:
        print(f'{"kernel":<56} {"us":>7}  grid x block')
        for name, us, grid, block in layer:
            print(f'{name[:56]:<56} {us:7.1f}  {grid} x {block}')
        print()
    print(f'{"kernel":<34} {"launches":>8} {"us":>8} {"share":>6}')
    for name, (n, us) in sorted(groups.items(), key=lambda kv: -kv[1][1]):
        print(f'{name[:34]:<34} {n:8d} {us:8.1f} {100 * us / total:5.1f}%')
    print(f'{"one layer":<34} {len(layer):8d} {total:8.1f}')
    if a.json:
        with open(a.json, 'w') as f:
            json.dump({'kernels': [{'name': n, 'us': us, 'grid': g, 'block': b} for n, us, g, b in layer],
                       'groups': [{'name': k, 'launches': v[0], 'us': v[1]} for k, v in groups.items()],
                       'total_us': total}, f, indent=1)


if __name__ == '__main__':
    main()
