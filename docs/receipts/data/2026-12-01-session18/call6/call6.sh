#!/usr/bin/env bash
# Session 18 call 6 (carry [".device"], timeout_s 400; the session's last device time): next-mix-pre against main
# (main now has hc_pre_norm): hc_mix and hc_pre_norm as one launch, a row's last mix block collapsing
# (PLUMB_FUSED_HC_MIX=0: the two launches). Built with: scripts/device-bundle-ab next-mix-pre -- test_dsv4_forward
# (main's test binary removed). Answers: bits (switch on and off), the contract, the CUDA tests, and the round at 1,
# 4 and 16 rows and 4 slots alternating eight times (written to $OUT as it goes).
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
L=plumb-next-mix-pre
VARIANTS="plumb $L $L@PLUMB_FUSED_HC_MIX=0"
CONTRACTS="$L" LIGHT=1 KERNELS=0 AB="$VARIANTS" bash tools/device/ab-builds.sh
echo "t=$SECONDS"
R=$(mktemp -d)

{ for b in next-mix-pre; do
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
tar -czf $OUT/call6-extra.tgz -C $R .; cp $R/tests.txt $R/rounds.txt $OUT/
echo "t=$SECONDS"
