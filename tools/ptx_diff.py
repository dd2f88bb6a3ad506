#!/usr/bin/env python3
"""Whether a change leaves the CUDA kernels' PTX as it was, kernel by kernel (no GPU needed).

  python3 tools/ptx_diff.py REV [--against REV2] [--file src/kernels/cuda/F.cu ...] [--rename OLD=NEW ...] [--show N]

Compiles each .cu file (default: every one REV and the other side differ in, or that includes a header they differ
in) at REV and at REV2 (default: the working tree) to PTX with build-gpu/'s own compile command, then compares every
kernel's PTX after dropping line info and renumbering labels, call scopes, local depots and the anonymous
namespaces' hashes. Kernels are matched by name; --rename substitutes in the old side's names first, all renames in
one pass (a template argument added: --rename 'ILi64EEE=ILi64ELb0EEE'). Prints one line a kernel: same, DIFF (with
the number of differing lines; --show N prints the first N lines of the diff), or only on one side. Exit status 1 if
any kernel differs. --registers also drops the virtual registers' numbers, a weaker check (ptxas may allocate a
renumbered kernel differently), for telling a renaming from a change.

Needs build-gpu/ configured with -DPLUMB_CUDA=ON (scripts/device-bundle does it). A kernel whose PTX is the same is
the same machine code: this is how a refactor or a merge shows it changes nothing on the GPU.
"""
import argparse
import difflib
import os
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw).stdout


def compile_commands(build):
    """The nvcc command of each .cu file in the build (relative source path -> argument list)."""
    out = run(["ninja", "-C", build, "-t", "commands", "plumb_core"])
    commands = {}
    for line in out.splitlines():
        args = shlex.split(line)
        if not args or "nvcc" not in os.path.basename(args[0]):
            continue
        source = next((a for a in args if a.endswith(".cu")), None)
        if source:
            commands[os.path.relpath(source, ROOT)] = args
    return commands


def to_ptx(args, tree, out):
    """The command pointed at another copy of the tree, writing PTX for one architecture."""
    new = []
    skip = False
    for a in args:
        if skip:
            skip = False
            continue
        if a in ("-o", "-MF"):
            skip = True
            continue
        if a in ("-c", "-MD") or a.startswith("--generate-code"):
            continue
        new.append(a.replace(ROOT, tree))
    return new + ["-arch=sm_90a", "-ptx", "-o", out]


def kernels(ptx_text, registers=False):
    text = re.sub(r"^\s*\.(loc|file)\b.*$", "", ptx_text, flags=re.M).split(".section\t.debug")[0]
    # The dropped .loc lines leave blank ones whose count follows the source's line numbers, not the code.
    text = "\n".join(line for line in text.splitlines() if line.strip()) + "\n"
    found = {}
    for m in re.finditer(r"\.entry (\S+)\((.*?)\n\}\n", text, flags=re.S):
        name, body = m.group(1), m.group(0)
        body = body.replace(name, "KERNEL")
        body = re.sub(r"\$L__BB\d+_", "L_", body)
        body = re.sub(r"__local_depot\d+", "DEPOT", body)
        body = re.sub(r"callseq \d+", "callseq N", body)  # a call's scope number counts the calls compiled before
        body = re.sub(r"_GLOBAL__N__\w+?_\d+_\w+?_cu_\w{8}", "ANON", body)
        body = re.sub(r"_INTERNAL_\w+?_\d+_\w+?_cu_\w{8}", "INTERNAL", body)
        if registers:
            body = re.sub(r"%(r|rd|rs|f|fd|p)\d+", r"%\1", body)
        found[re.sub(r"_GLOBAL__N__\w+?_\d+_\w+?_cu_\w{8}", "ANON", name)] = body
    return found


def tree_at(rev, keep):
    if rev is None:
        return ROOT
    path = tempfile.mkdtemp(prefix="ptx-diff-")
    run(["git", "-C", ROOT, "worktree", "add", "--detach", "-q", path, rev])
    keep.append(path)
    return path


def changed_files(rev, against):
    diff = ["git", "-C", ROOT, "diff", "--name-only", rev] + ([against] if against else [])
    names = run(diff).split()
    headers = [os.path.basename(n) for n in names if n.endswith((".cuh", ".h"))]
    cus = {n for n in names if n.endswith(".cu")}
    for source in run(["git", "-C", ROOT, "ls-files", "src/*.cu"]).split():
        with open(os.path.join(ROOT, source)) as f:
            text = f.read()
        if any(f'/{h}"' in text for h in headers):
            cus.add(source)
    return sorted(cus)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("rev")
    p.add_argument("--against", help="the other revision (default: the working tree)")
    p.add_argument("--file", action="append", help="a .cu file, relative to the repo root (repeatable)")
    p.add_argument("--rename", action="append", default=[], help="OLD=NEW in the old side's kernel names")
    p.add_argument("--build", default=os.path.join(ROOT, "build-gpu"))
    p.add_argument("--registers", action="store_true", help="drop the virtual registers' numbers too (weaker)")
    p.add_argument("--show", type=int, default=0, metavar="N",
                   help="print up to N lines of each differing kernel's diff")
    a = p.parse_args()
    commands = compile_commands(a.build)
    files = a.file or changed_files(a.rev, a.against)
    renames = dict(r.split("=", 1) for r in a.rename)
    # All renames in one pass, the longest first where two start at one place: a rename's output is never renamed
    # again (in turn, --rename 'Lb0EEE=Lb0ELb0EEE' would have matched inside --rename 'Lb1EEE=Lb1ELb0EEE's output).
    pattern = re.compile("|".join(re.escape(k) for k in sorted(renames, key=len, reverse=True))) if renames else None

    def rename(text):
        return pattern.sub(lambda m: renames[m.group(0)], text) if pattern else text

    worktrees = []
    differ = False
    try:
        old_tree, new_tree = tree_at(a.rev, worktrees), tree_at(a.against, worktrees)
        with tempfile.TemporaryDirectory() as tmp:
            for source in files:
                if source not in commands:
                    print(f"{source}: not in {a.build}'s commands (configure it again?)", file=sys.stderr)
                    continue
                sides = []
                for label, tree in (("old", old_tree), ("new", new_tree)):
                    out = os.path.join(tmp, f"{label}.ptx")
                    if not os.path.exists(os.path.join(tree, source)):
                        sides.append({})
                        continue
                    run(to_ptx(commands[source], tree, out))
                    with open(out) as f:
                        sides.append(kernels(f.read(), a.registers))
                old, new = sides
                old = {rename(name): rename(body) for name, body in old.items()}
                print(f"== {source}")
                for name in sorted(set(old) | set(new)):
                    short = re.sub(r"^_ZN5plumb4cuda\w*?ANON\d*", "", name)[:90]
                    if name not in new or name not in old:
                        print(f"  only {'old' if name in old else 'new'}: {short}")
                        differ = differ or name in old
                        continue
                    a_lines, b_lines = old[name].splitlines(), new[name].splitlines()
                    # Lines in the diff's changed blocks (an inserted line does not count every line after it)
                    ops = difflib.SequenceMatcher(None, a_lines, b_lines, autojunk=False).get_opcodes()
                    n = sum(max(i2 - i1, j2 - j1) for tag, i1, i2, j1, j2 in ops if tag != "equal")
                    print(f"  {'same' if n == 0 else f'DIFF ({n} lines)'}: {short}")
                    if n and a.show:
                        shown = list(difflib.unified_diff(a_lines, b_lines, "old", "new", n=1, lineterm=""))[2:]
                        print("\n".join(f"    {line}" for line in shown[: a.show]))
                    differ = differ or n > 0
    finally:
        for path in worktrees:
            subprocess.run(["git", "-C", ROOT, "worktree", "remove", "--force", path], capture_output=True)
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    try:
        main()
    except BrokenPipeError:  # piped into head: the worktrees are already removed
        sys.exit(1)
