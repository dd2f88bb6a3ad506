#!/usr/bin/env python3
"""Release numerics against the float64 oracle on tiny checkpoints (CPU, standard library only).

For each seed a gen-tiny checkpoint is written and prompts of random token ids run through `plumb logits` with
--numerics release and --numerics oracle (main logits of every position, and the MTP draft logits of every position
whose next token is known). Reported per prompt and overall: max and mean of max|release - oracle| / max|oracle| per
position, and how often the argmax agrees (overall and where the oracle's top-two margin exceeds 0.1), and how often
the release routes a (position, block) to the same experts and the indexer selects the same compressed rows as the
oracle. There is no pass bar: this is the size of the release quantization's own error, measured.

Usage (repository root, after building):
  python3 tools/reference/compare_release_oracle.py [--plumb build/plumb] [--work DIR] [--markdown OUT.md]
"""

import argparse
import array
import json
import random
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

SEEDS = (1, 2, 3)
LENGTHS = (300, 300, 300)
CLEAR_MARGIN = 0.1


def read_rows(path):
    data = Path(path).read_bytes()
    magic, version, dtype, rows, cols = struct.unpack_from("<8sIIQQ", data, 0)
    assert magic == b"PLUMBLGT" and version == 1 and dtype == 1, path
    values = array.array("f")
    values.frombytes(data[32:])
    return [values[r * cols:(r + 1) * cols] for r in range(rows)]


def compare(release, oracle):
    stats = []
    for r, o in zip(release, oracle):
        scale = max(abs(v) for v in o)
        err = max(abs(a - b) for a, b in zip(r, o)) / scale
        o_sorted = sorted(o, reverse=True)
        argmax_r = max(range(len(r)), key=lambda i: (r[i], -i))
        argmax_o = max(range(len(o)), key=lambda i: (o[i], -i))
        stats.append((err, argmax_r == argmax_o, o_sorted[0] - o_sorted[1] > CLEAR_MARGIN))
    return stats


def summarize(stats):
    n = len(stats)
    clear = [s for s in stats if s[2]]
    return {
        "positions": n,
        "max_rel_err": max(s[0] for s in stats),
        "mean_rel_err": sum(s[0] for s in stats) / n,
        "argmax_agree": sum(s[1] for s in stats),
        "clear_positions": len(clear),
        "clear_argmax_agree": sum(s[1] for s in clear),
    }


def choice_agreement(release_json, oracle_json):
    """(same expert sets, routed choices, same indexer sets, indexer choices) over every (position, block)."""
    r = json.loads(Path(release_json).read_text())["choices"]
    o = json.loads(Path(oracle_json).read_text())["choices"]
    experts = sum(sorted(a["experts"]) == sorted(b["experts"]) for a, b in zip(r, o))
    indexed = [(a, b) for a, b in zip(r, o) if "indexer_selected" in b]
    same_index = sum(sorted(a["indexer_selected"]) == sorted(b["indexer_selected"]) for a, b in indexed)
    return experts, len(o), same_index, len(indexed)


def run(plumb, args):
    subprocess.run([plumb] + args, check=True, stdout=subprocess.DEVNULL)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--plumb", default="build/plumb")
    ap.add_argument("--work", type=Path, help="keep the checkpoints and logits here (default: a temp folder)")
    ap.add_argument("--markdown", type=Path, help="also write the table as markdown")
    args = ap.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="plumb-release-oracle-"))
    work.mkdir(parents=True, exist_ok=True)

    rows, main_all, mtp_all, choices_all = [], [], [], []
    for seed in SEEDS:
        ckpt = work / f"ckpt-seed{seed}"
        if not ckpt.exists():
            run(args.plumb, ["gen-tiny", str(ckpt), "--seed", str(seed)])
        for i, length in enumerate(LENGTHS):
            rng = random.Random(seed * 7919 + i)
            ids = ",".join(str(rng.randrange(1024)) for _ in range(length))
            files = {}
            for numerics in ("release", "oracle"):
                stem = work / f"seed{seed}-p{i}-{numerics}"
                run(args.plumb, ["logits", str(ckpt), "--ids", ids, "--numerics", numerics, "--out", f"{stem}.bin",
                                 "--mtp-out", f"{stem}.mtp.bin", "--json", f"{stem}.json", "--choices"])
                files[numerics] = stem
            main = compare(read_rows(f"{files['release']}.bin"), read_rows(f"{files['oracle']}.bin"))
            mtp = compare(read_rows(f"{files['release']}.mtp.bin"), read_rows(f"{files['oracle']}.mtp.bin"))
            main_all += main
            mtp_all += mtp
            agree = choice_agreement(f"{files['release']}.json", f"{files['oracle']}.json")
            choices_all = [a + b for a, b in zip(choices_all, agree)] if choices_all else list(agree)
            rows.append((f"seed {seed} prompt {i}", length, summarize(main), summarize(mtp), agree))

    def line(label, length, m, t, c):
        return (f"| {label} | {length} | {m['max_rel_err']:.3e} | {m['mean_rel_err']:.3e} | "
                f"{m['argmax_agree']}/{m['positions']} | {m['clear_argmax_agree']}/{m['clear_positions']} | "
                f"{t['max_rel_err']:.3e} | {t['mean_rel_err']:.3e} | {t['argmax_agree']}/{t['positions']} | "
                f"{c[0]}/{c[1]} | {c[2]}/{c[3]} |")

    out = ["| prompt | tokens | main max rel err | main mean rel err | main argmax agree | argmax agree, "
           f"oracle margin > {CLEAR_MARGIN} | MTP max rel err | MTP mean rel err | MTP argmax agree | same experts | "
           "same indexer rows |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    out += [line(*r) for r in rows]
    out.append(line("**all**", sum(r[1] for r in rows), summarize(main_all), summarize(mtp_all), choices_all))
    text = "\n".join(out)
    print(text)
    if args.markdown:
        args.markdown.write_text(text + "\n")
    json.dump({"main": summarize(main_all), "mtp": summarize(mtp_all)}, sys.stdout)
    print()


if __name__ == "__main__":
    main()
