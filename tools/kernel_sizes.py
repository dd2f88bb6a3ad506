#!/usr/bin/env python3
"""Each CUDA kernel's machine code size, registers and spills, from a cubin built here (no GPU needed).

  python3 tools/kernel_sizes.py FILE.cu [FILE.cu ...] [--rev REV] [--against REV2] [--match REGEX]

Compiles each file for sm_90a to a cubin with build-gpu/'s own compile command (a file build-gpu does not build
gets `nvcc -std=c++17 -O3 --expt-relaxed-constexpr -I src`, nvcc from $NVCC, the PATH or /usr/local/cuda/bin), reads each kernel's SASS bytes from the cubin's sections (`readelf`) and its
registers and spills from ptxas's report. Prints each kernel's bytes, instructions (16 bytes each), registers and
spill bytes stored / loaded. With --rev REV, REV beside the working tree (or beside --against REV2), with the change
in instructions.

The code size is a proxy, not a time: it counts every path once, the ones a kernel never takes included, and a
loop once however often it runs. Session 21 used it to see what a change removes before spending device time
(docs/receipts/2026-12-01-session21-experts-even-columns.md): the experts' even columns took 15% off the one-row
kernels' code and paid on the GPU; plain scales took 11-13% more and did not.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ptx_diff  # noqa: E402  (the build's compile commands and the worktree helper)

ROOT = ptx_diff.ROOT


def short_name(mangled):
    """The kernel's demangled name without namespaces and parameters (the mangled one without c++filt)."""
    try:
        name = subprocess.run(["c++filt", mangled], check=True, capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return mangled
    name = name.replace("(anonymous namespace)::", "").removeprefix("void ")
    name = re.sub(r"\b\w+::", "", name)
    depth, cut = 0, len(name)
    for i, c in enumerate(name):  # drop the parameter list: the first '(' outside template brackets
        depth += c == "<"
        depth -= c == ">"
        if c == "(" and depth == 0:
            cut = i
            break
    return name[:cut]


def find_nvcc():
    for path in [os.environ.get("NVCC", ""), "nvcc", "/usr/local/cuda/bin/nvcc"]:
        if path and shutil.which(path):
            return path
    return None


def cubin_command(source, tree, commands, out):
    args = commands.get(source)
    if args is None:
        # CMakeLists.txt's CUDA flags that change what compiles: constexpr std:: calls in device code
        base = [find_nvcc() or "nvcc", "-std=c++17", "-O3", "--expt-relaxed-constexpr", "-I", os.path.join(tree, "src"),
                os.path.join(tree, source)]
    else:
        base = ptx_diff.to_ptx(args, tree, out)[:-4]  # the build's flags without its -arch, -ptx and -o
    return base + ["--generate-code=arch=compute_90a,code=[sm_90a]", "-cubin", "-Xptxas", "-v", "-o", out]


def ptxas_usage(report):
    """kernel -> [registers, spill stores, spill loads] from ptxas -v's report. A spill line counts for the kernel only
    under its own "Function properties for KERNEL" header: a non-inlined device function's properties follow the
    kernel's and must not overwrite them."""
    usage, current, props_for = {}, None, None
    for line in report.splitlines():
        m = re.search(r"Compiling entry function '(\S+)'", line)
        if m:
            current = m.group(1)
            usage[current] = [0, 0, 0]
        m = re.search(r"Function properties for (\S+)", line)
        if m:
            props_for = m.group(1)
        m = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m and current and props_for == current:
            usage[current][1:] = [int(m.group(1)), int(m.group(2))]
        m = re.search(r"Used (\d+) registers", line)
        if m and current:
            usage[current][0] = int(m.group(1))
    return usage


def measure(source, tree, commands, tmp):
    """kernel -> (bytes, registers, spill stores, spill loads) for one file in one tree."""
    out = os.path.join(tmp, "k.cubin")
    done = subprocess.run(cubin_command(source, tree, commands, out), capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"kernel_sizes: {source} did not compile:\n{done.stderr[-2000:]}")
    usage = ptxas_usage(done.stderr)
    sections = subprocess.run(["readelf", "-S", "-W", out], check=True, capture_output=True, text=True).stdout
    found = {}
    for m in re.finditer(r"\]\s+\.text\.(\S+)\s+PROGBITS\s+\S+\s+\S+\s+([0-9a-f]+)", sections):
        name, size = m.group(1), int(m.group(2), 16)
        regs, st, ld = usage.get(name, [0, 0, 0])
        found[short_name(name)] = (size, regs, st, ld)
    return found


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("files", nargs="+", help=".cu files, relative to the repo root")
    p.add_argument("--rev", help="also measure the files as they are at this revision, beside the other side")
    p.add_argument("--against", help="with --rev: the other side (default: the working tree)")
    p.add_argument("--match", default="", help="only kernels whose short name matches this regex")
    p.add_argument("--build", default=os.path.join(ROOT, "build-gpu"))
    a = p.parse_args()
    if a.against and not a.rev:
        p.error("--against names the other side of --rev; give --rev too")
    try:
        commands = ptx_diff.compile_commands(a.build)
    except (OSError, subprocess.CalledProcessError):
        commands = {}  # no configured CUDA build: every file gets the plain command
    worktrees = []
    try:
        trees = [ptx_diff.tree_at(a.rev, worktrees), ptx_diff.tree_at(a.against, worktrees)] if a.rev else [ROOT]
        with tempfile.TemporaryDirectory() as tmp:
            for source in a.files:
                sides = [measure(source, tree, commands, tmp) for tree in trees]
                names = sorted(set().union(*sides))
                print(f"{source}:")
                for name in names:
                    if not re.search(a.match, name):
                        continue
                    cells = []
                    for side in sides:
                        if name in side:
                            size, regs, st, ld = side[name]
                            cells.append(f"{size:8d} B {size // 16:6d} instr {regs:4d} regs  spill {st}/{ld}")
                        else:
                            cells.append(f"{'(absent)':>52s}")
                    change = ""
                    if len(sides) == 2 and name in sides[0] and name in sides[1]:
                        before, after = sides[0][name][0] // 16, sides[1][name][0] // 16
                        change = f"  {after - before:+d} instr ({(after - before) / max(before, 1):+.1%})"
                    print(f"  {name}\n    " + "  |  ".join(cells) + change)
    finally:
        for path in worktrees:
            subprocess.run(["git", "-C", ROOT, "worktree", "remove", "--force", path], capture_output=True)


if __name__ == "__main__":
    main()
