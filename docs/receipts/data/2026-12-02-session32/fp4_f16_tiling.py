#!/usr/bin/env python3
"""Can four shifts (or rotations) of one 32-bit word of FP4 codes give four f16 (or bf16) pairs in place, each with a
single mask? An e2m1 code s|e1 e0|m lands in an f16 as sign bit 15 and magnitude bits 9-11 (value x 2^-14, exact for
subnormal codes too), in a bf16 as 15 and 6-8. A pair's mask is those bits in both halves; four masked shifts of the
word must take disjoint bits (each code bit used once) and cover the word. Shifts are translates inside 0..31,
rotations translates mod 32: this counts the sets of four translates that tile, which is none for both formats.
Run: python3 fp4_f16_tiling.py"""
import itertools


def tilings(fields, n):
    mask = fields + [b + 16 for b in fields]
    found = []
    for shifts in itertools.combinations(range(n), 4):
        covered, ok = set(), True
        for t in shifts:
            bits = {(b + t) % n for b in mask}
            if bits & covered:
                ok = False
                break
            covered |= bits
        if ok:
            found.append(shifts)
    return found


for name, fields in (("f16", [9, 10, 11, 15]), ("bf16", [6, 7, 8, 15])):
    print(f"{name}: {len(tilings(fields, 32))} tilings by rotations; shifts inside the word are a subset of these")
