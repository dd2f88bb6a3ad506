#!/usr/bin/env python3
"""Each kernel's static SASS opcode counts from a `cuobjdump -sass` dump (plain or gzipped), and what changed
against a second dump. Run the dump on the GPU machine (cuobjdump is there, not here):

  cuobjdump -sass .device/bin/plumb > sass.txt
  python3 tools/device/sass_opcodes.py sass.txt [--match REGEX] [--against sass-main.txt] [--top N]

A kernel's line: its name (demangled when c++filt is on the PATH, the plumb namespaces and the parameter list left
out), its instruction count, then its opcodes by count (the mnemonic before the first '.', so IMAD.SHL and IMAD.MOV
count as IMAD; predicates such as @!P0 skipped). With --against, each kernel in both dumps gets the change in its
count and the opcodes whose counts differ. Static counts weigh every path once, however often it runs: a proxy for
what a change removes (session 26 used them for the experts' one-row pass), not a time.
"""
import argparse
import collections
import gzip
import re
import shutil
import subprocess
import sys

FUNCTION = re.compile(r"Function : (\S+)")
INSTRUCTION = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P[0-9T]\s+)?([A-Z][A-Z0-9_]*)")


def read_dump(path):
    """{mangled kernel name: Counter of opcodes} in the order the dump lists the kernels."""
    opener = gzip.open if path.endswith(".gz") else open
    counts, name = {}, None
    with opener(path, "rt") as f:
        for line in f:
            m = FUNCTION.search(line)
            if m:
                name = m.group(1)
                counts.setdefault(name, collections.Counter())
                continue
            m = name and INSTRUCTION.search(line)
            if m:
                counts[name][m.group(1)] += 1
    return counts


def readable_names(mangled):
    """Mangled name -> a short readable one (c++filt when present, else the mangled name)."""
    if not mangled or not shutil.which("c++filt"):
        return {n: n for n in mangled}
    out = subprocess.run(["c++filt"], input="\n".join(mangled), capture_output=True, text=True).stdout.splitlines()
    names = {}
    for m, d in zip(mangled, out):
        d = re.sub(r"^void ", "", d)
        d = re.sub(r"plumb::cuda::(ops::)?(\(anonymous namespace\)::)?", "", d)
        names[m] = d[: d.rfind("(")] if d.endswith(")") and "(" in d else d
    return names


def top(counter, n):
    return " ".join(f"{op}:{c}" for op, c in counter.most_common(n))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("dump")
    p.add_argument("--match", default="", help="only kernels whose readable name matches this regex")
    p.add_argument("--against", help="a second dump: print each kernel's change")
    p.add_argument("--top", type=int, default=12, help="opcodes shown a kernel (default 12)")
    a = p.parse_args()
    mine = read_dump(a.dump)
    theirs = read_dump(a.against) if a.against else {}
    names = readable_names(list(mine) + [k for k in theirs if k not in mine])
    shown = 0
    for kernel, counter in mine.items():
        name = names[kernel]
        if not re.search(a.match, name):
            continue
        shown += 1
        total = sum(counter.values())
        if not a.against:
            print(f"{name}  {total}  {top(counter, a.top)}")
        elif kernel not in theirs:
            print(f"{name}  {total}  (not in {a.against})")
        else:
            other = theirs[kernel]
            delta = {op: counter[op] - other[op] for op in set(counter) | set(other) if counter[op] != other[op]}
            changes = " ".join(f"{op}:{d:+d}" for op, d in sorted(delta.items(), key=lambda kv: (-abs(kv[1]), kv[0])))
            print(f"{name}  {sum(other.values())} -> {total} ({total - sum(other.values()):+d})  {changes}")
    if shown == 0:
        sys.exit(f"sass_opcodes: no kernel in {a.dump} matches {a.match!r}")


if __name__ == "__main__":
    main()
