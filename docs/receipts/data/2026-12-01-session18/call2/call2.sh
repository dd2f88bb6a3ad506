#!/usr/bin/env bash
# Session 18 call 2 (carry [".device"], timeout_s 480): two launch fusions against main (main: 80e654f's kernels,
# the one-wave lean P.V merged).
#  - next-hc-norm: Backend::hc_pre_norm, the sublayer's input RMSNorm inside hc_pre's block (PLUMB_FUSED_HC_NORM=0:
#    the two launches).
#  - next-gate-route: the router gate's last block routes (up to four rows; PLUMB_FUSED_GATE_ROUTE=0: the two
#    launches).
# Built with: scripts/device-bundle-ab next-hc-norm next-gate-route -- test_dsv4_forward (main's test binary removed).
# Answers: the bits at chunk 1 and 16 (each switch on and off), both contracts, both branches' CUDA tests, and the
# round at 1, 4 and 16 rows and 4 slots alternating eight times (medians, and how many of the eight pairs each won).
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
X=plumb-next-hc-norm; L=plumb-next-gate-route
VARIANTS="plumb $X $X@PLUMB_FUSED_HC_NORM=0 $L $L@PLUMB_FUSED_GATE_ROUTE=0"
CONTRACTS="$X $L" LIGHT=1 KERNELS=0 AB="$VARIANTS" bash tools/device/ab-builds.sh
echo "t=$SECONDS"
R=$(mktemp -d)
{ for b in next-hc-norm next-gate-route; do
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
base = d.get("plumb")
for k, v in d.items():
    if k == "plumb" or not base: continue
    off = d.get(k + "@PLUMB_FUSED_HC_NORM=0") or d.get(k + "@PLUMB_FUSED_GATE_ROUTE=0")
    wins = lambda other: [sum(a[c] < b[c] for a, b in zip(v, other)) for c in range(4)]
    print(f"{k:40s} pairs won against main: {wins(base)}" + (f", against its switch off: {wins(off)}" if off else ""))
PY
tar -czf $OUT/call2-extra.tgz -C $R .; cp $R/tests.txt $R/rounds.txt $OUT/
echo "t=$SECONDS"
