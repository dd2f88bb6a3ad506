#!/usr/bin/env bash
# Session 19 call 3 (carry [".device"], timeout_s 595): next-early-weights (4c06e03; 52a7239: the two-launch FP8 kernel and
# the dense linear kernels load their first weights before the PDL wait, PLUMB_EARLY_WEIGHTS) against main (a136915).
# Built with: scripts/device-bundle-ab next-early-weights -- test_dsv4_forward (main's test binary removed).
# Answers: bits (switch on and off), the contract, the CUDA tests, the kernel classes (main and the branch), and the
# round at 1, 4 and 16 rows and 4 slots alternating against main and the switch off, the order rotated each
# repetition.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/gpu.txt
E=plumb-next-early-weights
VARIANTS="plumb $E $E@PLUMB_EARLY_WEIGHTS=0"
CONTRACTS="$E" LIGHT=1 KERNELS=1 AB="$VARIANTS" bash tools/device/ab-builds.sh
echo "t=$SECONDS"
R=$(mktemp -d)
echo "next-early-weights CUDA tests: $(timeout -k 5 200 $B/test_dsv4_forward-next-early-weights --gtest_filter='*cuda*:Cuda*' 2>&1 | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')" | tee $R/tests.txt
cp $R/tests.txt $OUT/
echo "t=$SECONDS"
cmd() { local e=""; [[ $1 == *@* ]] && e=${1#*@}; echo "env ${e//,/ } $B/${1%%@*}"; }
read -r -a V <<< "$VARIANTS"
for rep in $(seq 1 24); do
  for i in $(seq 0 $((${#V[@]} - 1))); do v=${V[$(( (i + rep) % ${#V[@]} ))]}; t=${v//[@=,]/_}
    timeout -k 5 60 $(cmd $v) synth --only layers --rows 1 4 16 --repeats 10 > $R/layers-$t-$rep.txt 2>&1
    echo "$v rep $rep: $(grep -E '^43-layer round +1 slot, as drawn' $R/layers-$t-$rep.txt | awk '{printf "%s ", $(NF-3)}')| 4 slots $(grep -E '^43-layer round +4 slots, as drawn' $R/layers-$t-$rep.txt | awk '{print $(NF-3)}')"
  done; echo "t=$SECONDS"; [[ $SECONDS -gt 530 ]] && break
done | tee $R/rounds.txt
python3 - $R/rounds.txt <<'PY' | tee $R/medians.txt
import re, statistics as st, sys
d = {}
for line in open(sys.argv[1]):
    m = re.match(r'(\S+) rep (\d+): ([\d.]+) ([\d.]+) ([\d.]+) \| 4 slots ([\d.]+)', line)
    if m: d.setdefault(m.group(1), {})[int(m.group(2))] = [float(m.group(i)) for i in range(3, 7)]
for k, v in d.items():
    print(f"{k:40s} medians: " + "  ".join(f"{st.median(c):9.1f}" for c in zip(*v.values())) + f"   (1 / 4 / 16 rows | 4 slots; {len(v)} runs)")
def wins(a, b):
    reps = sorted(set(a) & set(b))
    return [sum(a[r][c] < b[r][c] for r in reps) for c in range(4)], len(reps)
E = "plumb-next-early-weights"
for other in ("plumb", E + "@PLUMB_EARLY_WEIGHTS=0"):
    if E in d and other in d:
        w, n = wins(d[E], d[other]); print(f"{E} won against {other}: {w} of {n}")
if "plumb" in d and E + "@PLUMB_EARLY_WEIGHTS=0" in d:
    w, n = wins(d[E + "@PLUMB_EARLY_WEIGHTS=0"], d["plumb"]); print(f"switch off won against main (the same arithmetic and order): {w} of {n}")
PY
tar -czf $OUT/call3-extra.tgz -C $R .; cp $R/rounds.txt $R/medians.txt $OUT/
echo "t=$SECONDS"
