#!/usr/bin/env bash
# Session 19 call 1 (carry [".device"], timeout_s 590): next-both (ef0d431) against main (a136915): q_norm's FP8
# quantization in its launch for wq_b (PLUMB_FUSED_NORM_QUANT) and the experts' h quantized by their gate/up pass
# (PLUMB_EXPERTS_H_QUANT), two act_quant launches fewer a layer at one row.
# Built with: scripts/device-bundle-ab next-both -- test_dsv4_forward (main's test binary removed).
# Answers: bits (each switch on and off), the contract, the CUDA tests, the kernel classes and per-kernel device
# times at one row, and the round at 1, 4 and 16 rows and 4 slots alternating ten times against main and each
# switch off.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
L=plumb-next-both
VARIANTS="plumb $L $L@PLUMB_FUSED_NORM_QUANT=0 $L@PLUMB_EXPERTS_H_QUANT=0"
CONTRACTS="$L" LIGHT=1 KERNELS=1 AB="$VARIANTS" bash tools/device/ab-builds.sh
echo "t=$SECONDS"
R=$(mktemp -d)
echo "next-both CUDA tests: $(timeout -k 5 200 $B/test_dsv4_forward-next-both --gtest_filter='*cuda*:Cuda*' 2>&1 | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')" | tee $R/tests.txt
timeout -k 5 60 $B/test_dsv4_forward-next-both --gtest_filter='Cuda/CudaFusedOp*' 2>&1 | grep -E '^\[ +(OK|FAILED) ' | tee -a $R/tests.txt
echo "t=$SECONDS"
# Per-kernel device times at one row (graphs off: the timer's launches), main and next-both.
for v in plumb $L; do
  PLUMB_CUDA_KERNEL_TIMES=1 timeout -k 5 60 $B/$v synth --only layers --rows 1 --repeats 4 > $R/kt-$v.txt 2>&1
  echo "== $v"; sed -n '/kernel (device time)/,$p' $R/kt-$v.txt | grep -E "kernel|experts_pass|act_quant|rms_norm|fp8_linear " | head -12
done | tee $R/kernel-times.txt
echo "t=$SECONDS"
cmd() { local e=""; [[ $1 == *@* ]] && e=${1#*@}; echo "env ${e//,/ } $B/${1%%@*}"; }
for rep in 1 2 3 4 5 6 7 8 9 10; do for v in $VARIANTS; do t=${v//[@=,]/_}
  timeout -k 5 60 $(cmd $v) synth --only layers --rows 1 4 16 --repeats 10 > $R/layers-$t-$rep.txt 2>&1
  echo "$v rep $rep: $(grep -E '^43-layer round +1 slot, as drawn' $R/layers-$t-$rep.txt | awk '{printf "%s ", $(NF-3)}')| 4 slots $(grep -E '^43-layer round +4 slots, as drawn' $R/layers-$t-$rep.txt | awk '{print $(NF-3)}')"
done; echo "t=$SECONDS"; [[ $SECONDS -gt 540 ]] && break; done | tee $R/rounds.txt
python3 - $R/rounds.txt <<'PY'
import re, statistics as st, sys
d = {}
for line in open(sys.argv[1]):
    m = re.match(r'(\S+) rep \d+: ([\d.]+) ([\d.]+) ([\d.]+) \| 4 slots ([\d.]+)', line)
    if m: d.setdefault(m.group(1), []).append([float(m.group(i)) for i in range(2, 6)])
for k, v in d.items():
    print(f"{k:45s} medians: " + "  ".join(f"{st.median(c):9.1f}" for c in zip(*v)) + f"   (1 / 4 / 16 rows | 4 slots; {len(v)} runs)")
wins = lambda a, b: [sum(x[c] < y[c] for x, y in zip(a, b)) for c in range(4)]
base, both = d.get("plumb"), d.get("plumb-next-both")
if base and both: print(f"next-both pairs won against main: {wins(both, base)}")
for k, v in d.items():
    if "@" in k and both: print(f"next-both pairs won against {k}: {wins(both, v)}")
PY
tar -czf $OUT/call1-extra.tgz -C $R .; cp $R/tests.txt $R/rounds.txt $R/kernel-times.txt $OUT/
echo "t=$SECONDS"
