#!/usr/bin/env bash
# Session 21 call 2 (carry [".device"], timeout_s 560): next-even-columns (071af4b: at one to four rows the experts'
# 8-row passes take four pairs in the MMA's even columns; PLUMB_EXPERTS_EVEN) against its switch off. Built with
# scripts/device-bundle-ab next-even-columns -- test_dsv4_forward (main's test binary removed); .device/experts-*.cubin
# are fp4_experts.cu compiled here for sm_90a (main, and the branch).
# Answers: bits against main (tiny model, chunk 1 and 16); the experts' contract entry (its gate 3 holds a row
# alone, now in even columns, bit-equal to the row in 16-row launches at release width); the CUDA tests; the
# kernel timer at one row; the experts kernel classes; SASS opcode counts of the experts kernels (main and branch);
# ncu's executed instructions by opcode for main's one-row passes; the round alternated, the order rotated.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
R=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt
E=plumb-next-even-columns S=PLUMB_EXPERTS_EVEN
CONTRACTS="none" LIGHT=1 KERNELS=0 AB="plumb $E $E@$S=0" OUT=$R bash tools/device/ab-builds.sh > /dev/null
cat $R/checks.txt; echo "t=$SECONDS"
{
  echo "CUDA tests: $(timeout -k 5 150 $B/test_dsv4_forward-next-even-columns --gtest_filter='*cuda*:Cuda*' 2>&1 | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')"
  echo "fp4_experts_cuda: $(timeout -k 5 120 $B/$E contract --backend cuda --only fp4_experts_cuda 2>&1 | tail -1)"
} | tee $R/tests.txt
echo "t=$SECONDS"
for sw in 1 0; do
  env $S=$sw PLUMB_CUDA_KERNEL_TIMES=1 timeout -k 5 60 $B/$E synth --only layers --rows 1 --repeats 4 > /tmp/kt.txt 2>&1
  sed -n '/kernel (device time)/,$p' /tmp/kt.txt > $R/kernel-times-switch$sw.txt
  echo "switch $sw: $(grep -E '^experts_pass' $R/kernel-times-switch$sw.txt | awk '{printf "%s %s us; ", $2, $5}')"
done | tee $R/kernel-timer.txt
for sw in 1 0; do
  env $S=$sw timeout -k 5 90 $B/$E synth --only kernels > $R/kernels-switch$sw.txt 2>&1
  echo "switch $sw:"; grep -E "^experts" $R/kernels-switch$sw.txt
done | tee $R/experts-classes.txt
echo "t=$SECONDS"
{
  for c in main even; do
    /usr/local/cuda/bin/cuobjdump -sass .device/experts-$c.cubin > $R/sass-experts-$c.txt 2>&1
    awk '/Function :/ {f=$3} /^ +\/\*[0-9a-f]+\*\// {op=$2; if (op ~ /^@/) op=$3; sub(/\..*/, "", op); sub(/;$/, "", op); n[f" "op]++} END {for (k in n) print k, n[k]}' $R/sass-experts-$c.txt | sort > $R/sass-opcodes-$c.txt
  done
  echo "SASS opcode counts written"
} | tee -a $R/tests.txt
timeout -k 5 100 /usr/local/cuda/bin/ncu -k regex:experts_pass --launch-skip 4 --launch-count 4 \
  --metrics sass__inst_executed_per_opcode,smsp__inst_executed.sum,gpu__time_duration.sum,smsp__issue_active.avg.per_cycle_active,smsp__warps_active.avg.per_cycle_active \
  --print-metric-instances values $B/plumb synth --only layers --rows 1 --repeats 1 > $R/ncu-experts-opcodes-main.txt 2>&1
grep -E "experts_pass_kernel|duration|inst_executed.sum|issue_active|warps_active" $R/ncu-experts-opcodes-main.txt | head -24
echo "t=$SECONDS"
STOP_AFTER=$((520 - SECONDS - 15)) OUT=$R bash tools/device/alternate.sh $E $E@$S=0 > /dev/null
cat $R/medians.txt
tar -czf $OUT/call2.tgz -C $R .
cp $R/checks.txt $R/tests.txt $R/kernel-timer.txt $R/experts-classes.txt $R/medians.txt $OUT/
echo "t=$SECONDS"
