#!/usr/bin/env python3
"""The medians of an alternated round, and how the first variant compares with each other one, repetition by
repetition (tools/device/alternate.sh writes the input; session 19-20's call scripts wrote the same lines).

Input lines: `VARIANT rep N: ROW1 ROW4 ROW16 | 4 slots SLOTS` (the 43-layer round in us). Each repetition ran every
variant once, one after another, so the pairs within a repetition share the machine's state. For the first variant
against each other one it prints, per column: how many repetitions the first was faster in, the median of the
paired differences (first / other - 1, in percent), and the two-sided sign test's p (the chance of a split at least
this uneven if neither were faster). A p above about 0.05 says the repetitions cannot tell the two apart.

  python3 tools/device/alternation_table.py rounds.txt VARIANT_A VARIANT_B [...]
  (no variants named: every variant in the file, in the order of first appearance)
"""
import math
import re
import statistics
import sys

COLUMNS = ("1 row", "4 rows", "16 rows", "4 slots")
LINE = re.compile(r"(\S+) rep (\d+): ([\d.]+) ([\d.]+) ([\d.]+) \| 4 slots ([\d.]+)$")


def read_runs(path):
    runs, order = {}, []
    for line in open(path):
        m = LINE.match(line.strip())
        if not m:
            continue
        if m.group(1) not in runs:
            order.append(m.group(1))
        runs.setdefault(m.group(1), {})[int(m.group(2))] = [float(m.group(i)) for i in range(3, 7)]
    return runs, order


def sign_test_p(wins, n):
    """Two-sided: twice the smaller tail of Binomial(n, 1/2), at most 1."""
    if n == 0:
        return 1.0
    k = min(wins, n - wins)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2**n
    return min(1.0, 2 * tail)


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    runs, order = read_runs(argv[1])
    variants = argv[2:] or order
    width = max([len(v) for v in variants] + [7])
    print(f"{'variant':{width}s} " + " ".join(f"{c:>9s}" for c in COLUMNS) + "  runs")
    for v in variants:
        r = runs.get(v, {})
        cells = " ".join(f"{statistics.median(c):9.1f}" for c in zip(*r.values())) if r else "no complete run"
        print(f"{v:{width}s} {cells}  {len(r)}")
    first = runs.get(variants[0], {})
    for other in variants[1:]:
        o = runs.get(other, {})
        reps = sorted(set(first) & set(o))
        print(f"{variants[0]} against {other}, {len(reps)} repetitions:")
        for c, name in enumerate(COLUMNS):
            wins = sum(first[k][c] < o[k][c] for k in reps)
            diff = statistics.median(100 * (first[k][c] / o[k][c] - 1) for k in reps) if reps else 0.0
            print(f"  {name:8s} faster in {wins:2d} of {len(reps)}, median paired difference {diff:+6.2f}%, "
                  f"sign test p = {sign_test_p(wins, len(reps)):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
