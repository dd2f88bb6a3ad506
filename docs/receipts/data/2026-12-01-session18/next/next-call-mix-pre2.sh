#!/usr/bin/env bash
# Prepared at the end of session 18 for a later call (carry [".device"], timeout_s 400; about 4 minutes). NOT RUN.
# next-mix-pre2 (next/hc-mix-pre-constants-first.patch: lost/hc-mix-pre.patch and one more commit): hc_mix and
# hc_pre_norm as one launch, a row's last mix block collapsing, with hc_pre's constants and the norm's weights
# loaded before the PDL wait in every block. Call 6's build loaded them in the last block after its arrival and lost
# 4.5% of the round at one row against PLUMB_FUSED_HC_MIX=0. ptxas: 168 registers, 36 bytes of spills.
# Build here first, on main with a clean tree:
#   git checkout -b next-mix-pre2 main && git am docs/receipts/data/2026-12-01-session18/next/hc-mix-pre-constants-first.patch
#   git checkout main && scripts/device-bundle-ab next-mix-pre2 -- test_dsv4_forward
#   rm -f .device/bin/test_dsv4_forward.gz   # main's own test binary is not needed here
# Then: bash docs/receipts/data/2026-12-01-session18/next/next-call-mix-pre2.sh
# Answers: bits (switch on and off; expect cf824e82009a0f99), the contract (28 kernels, 43 controls), the CUDA
# tests, and the round at 1, 4 and 16 rows and 4 slots alternating eight times (written to $OUT as it goes).
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
L=plumb-next-mix-pre2
VARIANTS="plumb $L $L@PLUMB_FUSED_HC_MIX=0"
CONTRACTS="$L" LIGHT=1 KERNELS=0 AB="$VARIANTS" bash tools/device/ab-builds.sh
echo "t=$SECONDS"
R=$(mktemp -d)

{ for b in next-mix-pre2; do
    echo "$b CUDA tests: $(timeout -k 5 150 $B/test_dsv4_forward-$b --gtest_filter='*cuda*:Cuda*' 2>&1 | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')"
  done; } | tee $R/tests.txt $OUT/tests.txt
echo "t=$SECONDS"
cmd() { local e=""; [[ $1 == *@* ]] && e=${1#*@}; echo "env ${e//,/ } $B/${1%%@*}"; }
for rep in 1 2 3 4 5 6 7 8; do for v in $VARIANTS; do t=${v//[@=,]/_}
  timeout -k 5 60 $(cmd $v) synth --only layers --rows 1 4 16 --repeats 10 > $R/layers-$t-$rep.txt 2>&1
  echo "$v rep $rep: $(grep -E '^43-layer round +1 slot, as drawn' $R/layers-$t-$rep.txt | awk '{printf "%s ", $(NF-3)}')| 4 slots $(grep -E '^43-layer round +4 slots, as drawn' $R/layers-$t-$rep.txt | awk '{print $(NF-3)}')"
done; echo "t=$SECONDS"; done | tee $R/rounds.txt $OUT/rounds.txt
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
    off = d.get(k + "@PLUMB_FUSED_HC_MIX=0")
    wins = lambda other: [sum(a[c] < b[c] for a, b in zip(v, other)) for c in range(4)]
    print(f"{k:40s} pairs won against main: {wins(base)}" + (f", against its switch off: {wins(off)}" if off else ""))
PY
tar -czf $OUT/next-call-extra.tgz -C $R .; cp $R/tests.txt $R/rounds.txt $OUT/
echo "t=$SECONDS"
