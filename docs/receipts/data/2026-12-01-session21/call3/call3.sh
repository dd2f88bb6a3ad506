#!/usr/bin/env bash
# Session 21 call 3 (carry [".device"], timeout_s 540): next-plain-scales (eae7840, on next-even-columns 071af4b):
# the experts decode scale words without the 0/255 test where no matrix of the launch holds those bytes
# (PLUMB_EXPERTS_PLAIN_SCALES), on top of the even columns at 1-4 rows (PLUMB_EXPERTS_EVEN). Built with
# scripts/device-bundle-ab next-plain-scales -- test_dsv4_forward (main's test binary removed).
# Answers: bits against main (tiny model, chunk 1 and 16); the experts' contract entry (a fifth variant with every
# scale word tested, held bit-equal by gate 3); the CUDA tests; the kernel timer at one row; the experts kernel
# classes; the round alternated: both switches on, plain scales off, both off (main's kernels), the order rotated.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
R=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt
E=plumb-next-plain-scales S=PLUMB_EXPERTS_PLAIN_SCALES S2=PLUMB_EXPERTS_EVEN
V="$E $E@$S=0 $E@$S=0,$S2=0"
CONTRACTS="none" LIGHT=1 KERNELS=0 AB="plumb $V" OUT=$R bash tools/device/ab-builds.sh > /dev/null
cat $R/checks.txt; echo "t=$SECONDS"
{
  echo "CUDA tests: $(timeout -k 5 150 $B/test_dsv4_forward-next-plain-scales --gtest_filter='*cuda*:Cuda*' 2>&1 | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')"
  echo "fp4_experts_cuda: $(timeout -k 5 150 $B/$E contract --backend cuda --only fp4_experts_cuda 2>&1 | tail -1)"
} | tee $R/tests.txt
echo "t=$SECONDS"
for v in "$S=1" "$S=0" "$S=0 $S2=0"; do
  env $v PLUMB_CUDA_KERNEL_TIMES=1 timeout -k 5 60 $B/$E synth --only layers --rows 1 --repeats 4 > /tmp/kt.txt 2>&1
  sed -n '/kernel (device time)/,$p' /tmp/kt.txt > "$R/kernel-times-${v// /_}.txt"
  echo "$v: $(grep -E '^experts_pass' "$R/kernel-times-${v// /_}.txt" | awk '{printf "%s %s us; ", $2, $5}')"
done | tee $R/kernel-timer.txt
for v in "$S=1" "$S=0" "$S=0 $S2=0"; do
  env $v timeout -k 5 90 $B/$E synth --only kernels > "$R/kernels-${v// /_}.txt" 2>&1
  echo "$v:"; grep -E "^experts" "$R/kernels-${v// /_}.txt"
done | tee $R/experts-classes.txt
echo "t=$SECONDS"
STOP_AFTER=$((500 - SECONDS)) OUT=$R bash tools/device/alternate.sh $V > /dev/null
cat $R/medians.txt
python3 tools/device/alternation_table.py $R/rounds.txt $E@$S=0 $E@$S=0,$S2=0 | tail -5
tar -czf $OUT/call3.tgz -C $R .
cp $R/checks.txt $R/tests.txt $R/kernel-timer.txt $R/experts-classes.txt $R/medians.txt $OUT/
echo "t=$SECONDS"
