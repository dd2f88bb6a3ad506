#!/usr/bin/env python3
"""One layer's kernels from an ncu CSV of `plumb synth --only layers` (every kernel alone, gpu__time_duration).

  PLUMB_CUDA_GRAPHS=0 ncu --launch-count 130 --csv --metrics gpu__time_duration.sum[,MORE,...] \
      plumb synth --only layers --rows 1 --repeats 1 --config CFG | gzip > layer.csv.gz
  python3 tools/device/ncu_layer_table.py layer.csv.gz [--list] [--json out.json]

A layer is the span from one hc_mix_kernel to the one two after it (each layer mixes twice: before attention and
before the experts), taken after synth's warm-up copies. Prints the layer's kernels grouped by name, largest total
first, with the sum, then the sums by class (weight kernels, attention, glue); --list also prints them in launch
order. Any other metric in the CSV (pipe utilizations, stall reasons: session 25's call 6 lists them) becomes a
column: each launch's value in the list, and the time-weighted mean over a group's launches in the table.
"""
import argparse
import collections
import csv
import gzip
import io
import json
import sys

TIME = 'gpu__time_duration.sum'

# Column labels for the metrics the call scripts collect; any other metric is labelled by its name.
LABELS = {
    'sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active': 'alu%',
    'sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active': 'fmah%',
    'sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active': 'fma%',
    'sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active': 'tensor%',
    'sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active': 'lsu%',
    'dram__throughput.avg.pct_of_peak_sustained_elapsed': 'dram%',
    'smsp__issue_active.avg.pct_of_peak_sustained_active': 'issue%',
    'sm__warps_active.avg.pct_of_peak_sustained_active': 'occ%',
    'smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio': 'st:long',
    'smsp__average_warps_issue_stalled_wait_per_issue_active.ratio': 'st:wait',
    'smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio': 'st:math',
    'smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio': 'st:bar',
    'smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio': 'st:short',
    'smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio': 'st:lg',
}

# A kernel's class by its name's start: the kernels that stream weights, the attention's, and the rest (glue).
CLASSES = (
    ('weights', ('experts_pass', 'fp8_linear', 'fp8_detail::fp8_linear', 'fp8_dense_mma', 'dense_linear')),
    ('attention', ('attention_', 'indexer_', 'compress')),
)


def short_name(kernel):
    name = kernel.replace('void ', '')
    for prefix in ('plumb::cuda::ops::', 'plumb::cuda::', '(anonymous namespace)::', '<unnamed>::', 'unnamed>::',
                   'ops::'):
        name = name.replace(prefix, '')
    return name.split('(')[0]  # the parameter list, after the namespaces (one of which has parentheses) are gone


def kernel_class(name):
    for label, starts in CLASSES:
        if name.startswith(starts):
            return label
    return 'glue'


def read_kernels(path):
    """The launches in the CSV's order: (name, us, grid, block, {metric: value}) with every metric ncu wrote."""
    opener = gzip.open if path.endswith('.gz') else open
    with opener(path, 'rt') as f:
        lines = [line for line in f if line.startswith('"')]  # ncu's own messages are not quoted
    launches = collections.OrderedDict()
    for r in csv.DictReader(io.StringIO(''.join(lines))):
        key = r.get('ID') or str(len(launches))
        launch = launches.setdefault(key, {'name': short_name(r['Kernel Name']), 'grid': r.get('Grid Size', ''),
                                           'block': r.get('Block Size', ''), 'us': None, 'metrics': {}})
        value = float(r['Metric Value'].replace(',', ''))
        if r.get('Metric Name') == TIME:
            scale = {'ns': 1e-3, 'us': 1.0, 'usecond': 1.0, 'ms': 1e3, 'msecond': 1e3}.get(r['Metric Unit'], None)
            if scale is None:
                sys.exit(f'ncu_layer_table: unknown time unit {r["Metric Unit"]!r}')
            launch['us'] = value * scale
        else:
            launch['metrics'][r['Metric Name']] = value
    return [(l['name'], l['us'], l['grid'], l['block'], l['metrics']) for l in launches.values() if l['us'] is not None]


def one_layer(kernels):
    mixes = [i for i, k in enumerate(kernels) if k[0] == 'hc_mix_kernel']
    if len(mixes) < 3:
        sys.exit(f'ncu_layer_table: {len(mixes)} hc_mix launches; a layer needs three (raise --launch-count)')
    return kernels[mixes[0]:mixes[2]]


def metric_names(layer):
    names = []
    for *_, metrics in layer:
        names += [m for m in metrics if m not in names]
    return names


def weighted(launches, metric):
    """The time-weighted mean of a metric over launches that have it (None where none has)."""
    pairs = [(us, m[metric]) for _, us, _, _, m in launches if metric in m]
    total = sum(us for us, _ in pairs)
    return sum(us * v for us, v in pairs) / total if total > 0 else None


def cells(values, width=8):
    return ''.join(f'{"-" if v is None else f"{v:.1f}" if abs(v) >= 10 else f"{v:.2f}":>{width}}' for v in values)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('csv', help='ncu --csv output, optionally gzipped')
    ap.add_argument('--list', action='store_true', help='also list the kernels in launch order')
    ap.add_argument('--json', help='write the layer, its groups and its classes as JSON')
    a = ap.parse_args()
    layer = one_layer(read_kernels(a.csv))
    extra = metric_names(layer)
    head = ''.join(f'{LABELS.get(m, m):>8}' for m in extra)
    total = sum(us for _, us, _, _, _ in layer)
    if a.list:
        print(f'{"kernel":<56} {"us":>7}{head}  grid x block')
        for name, us, grid, block, metrics in layer:
            print(f'{name[:56]:<56} {us:7.1f}{cells([metrics.get(m) for m in extra])}  {grid} x {block}')
        print()
    groups = collections.OrderedDict()
    for launch in layer:
        groups.setdefault(launch[0].split('<')[0], []).append(launch)
    print(f'{"kernel":<34} {"launches":>8} {"us":>8} {"share":>6}{head}')
    for name, launches in sorted(groups.items(), key=lambda kv: -sum(l[1] for l in kv[1])):
        us = sum(l[1] for l in launches)
        print(f'{name[:34]:<34} {len(launches):8d} {us:8.1f} {100 * us / total:5.1f}%'
              f'{cells([weighted(launches, m) for m in extra])}')
    print(f'{"one layer":<34} {len(layer):8d} {total:8.1f}')
    classes = collections.OrderedDict((label, []) for label in ('weights', 'attention', 'glue'))
    for launch in layer:
        classes[kernel_class(launch[0])].append(launch)
    print()
    for label, launches in classes.items():
        us = sum(l[1] for l in launches)
        print(f'{label:<34} {len(launches):8d} {us:8.1f} {100 * us / total:5.1f}%'
              f'{cells([weighted(launches, m) for m in extra])}')
    if a.json:
        with open(a.json, 'w') as f:
            json.dump({'kernels': [{'name': n, 'us': us, 'grid': g, 'block': b, 'metrics': m}
                                   for n, us, g, b, m in layer],
                       'groups': [{'name': k, 'launches': len(v), 'us': sum(l[1] for l in v)}
                                  for k, v in groups.items()],
                       'classes': [{'name': k, 'launches': len(v), 'us': sum(l[1] for l in v)}
                                   for k, v in classes.items()],
                       'total_us': total}, f, indent=1)


if __name__ == '__main__':
    main()
