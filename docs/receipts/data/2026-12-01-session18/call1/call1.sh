#!/usr/bin/env bash
# Prepared at the end of session 17 for a later call (carry [".device"], timeout_s 420; about 4 minutes). NOT RUN.
# Two builds against main:
#  - next-indexer-lane (next/indexer-lane.patch): Backend::await_lane, and the CSA indexer's top-k on lane 2 after
#    lane 4 (its head weights and compressed index rows), beside the query's wq_b and head norm instead of after the
#    join. Ordering only (the same kernels and arguments); the lane checker passes with it and fails without the
#    await. Expected: about -7 us a CSA layer at one row (21 layers: about -1.5% of the round) if the graph overlaps
#    the two chains as it does the others.
#  - next-pv-lean6 (lost/pv-lean-one-wave-logits-exps.patch, rebased on main; its kernels' PTX as call 8's build):
#    the one-wave P.V's logits and exps by entry, 2 us less under ncu (call 5) but rounds unreadable (calls 5 and 8);
#    never contract-checked in this form.
# Build them here first, on main with a clean tree:
#   git checkout -b next-indexer-lane main && git am docs/receipts/data/2026-12-01-session17/next/indexer-lane.patch
#   git checkout -b next-pv-lean6 main && git am docs/receipts/data/2026-12-01-session17/lost/pv-lean-one-wave-logits-exps.patch
#   git checkout main && scripts/device-bundle-ab next-indexer-lane next-pv-lean6 -- test_dsv4_forward
#   rm -f .device/bin/test_dsv4_forward.gz   # main's own test binary is not needed here
# Then: bash docs/receipts/data/2026-12-01-session17/next/next-call-indexer-lane.sh
# What it answers: the bits at chunk 1 and 16 (expect cf824e82009a0f99; ab-builds compares each with main's), both
# contracts, both branches' CUDA tests, and the round at 1, 4 and 16 rows and 4 slots alternating eight times
# (medians: the machine drifted 3-4% between single runs in session 17).
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
X=plumb-next-indexer-lane; L=plumb-next-pv-lean6
VARIANTS="plumb $X $L $L@PLUMB_PV_LEAN_ONE_WAVE=0"
CONTRACTS="$X $L" LIGHT=1 KERNELS=0 AB="$VARIANTS" bash tools/device/ab-builds.sh
echo "t=$SECONDS"
R=$(mktemp -d)
{ for b in next-indexer-lane next-pv-lean6; do
    echo "$b CUDA tests: $(timeout -k 5 150 $B/test_dsv4_forward-$b --gtest_filter='*cuda*:Cuda*' 2>&1 | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')"
  done; } | tee $R/tests.txt
echo "t=$SECONDS"
cmd() { local e=""; [[ $1 == *@* ]] && e=${1#*@}; echo "env ${e//,/ } $B/${1%%@*}"; }
for rep in 1 2 3 4 5 6 7 8; do for v in $VARIANTS; do t=${v//[@=,]/_}
  timeout -k 5 60 $(cmd $v) synth --only layers --rows 1 4 16 --repeats 10 > $R/layers-$t-$rep.txt 2>&1
  echo "$v rep $rep: $(grep -E '^43-layer round +1 slot, as drawn' $R/layers-$t-$rep.txt | awk '{printf "%s ", $(NF-3)}')| 4 slots $(grep -E '^43-layer round +4 slots, as drawn' $R/layers-$t-$rep.txt | awk '{print $(NF-3)}')"
done; echo "t=$SECONDS"; done | tee $R/rounds.txt
python3 - $R/rounds.txt <<'PY'
import re, statistics as st, sys
d = {}
for line in open(sys.argv[1]):
    m = re.match(r'(\S+) rep \d+: ([\d.]+) ([\d.]+) ([\d.]+) \| 4 slots ([\d.]+)', line)
    if m: d.setdefault(m.group(1), []).append([float(m.group(i)) for i in range(2, 6)])
for k, v in d.items():
    print(f"{k:40s} medians: " + "  ".join(f"{st.median(c):9.1f}" for c in zip(*v)) + "   (1 / 4 / 16 rows | 4 slots)")
PY
tar -czf $OUT/next-call-extra.tgz -C $R .; cp $R/tests.txt $R/rounds.txt $OUT/
echo "t=$SECONDS"
