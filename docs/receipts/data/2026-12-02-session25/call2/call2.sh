#!/usr/bin/env bash
# Session 25, call 2 (carry [".device"], timeout_s 600): the experts' down pass in two K splits of 1024 (branch
# next-down-split2, one commit on main 9b8110f), its 8-row kernels at six blocks a multiprocessor. Built from main
# with scripts/device-bundle-ab next-down-split2 -- test_dsv4_forward, main's test binary removed. Answers: bits
# against main (the tiny model's moe_inter 128 is one split either way, so they must be cf824e82009a0f99); the CUDA
# tests; the experts' contract entry with the rule and with 4 blocks forced (the release shape takes the new order);
# the whole contract; the experts' kernel classes with two splits at 6 and 4 blocks and with one split; the kernel
# timer's experts lines at 1 row; then the round alternated, two splits against one, in one binary.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
R=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt
E=plumb-next-down-split2 S=PLUMB_EXPERTS_DOWN_SPLIT2 K=PLUMB_EXPERTS_DOWN_BLOCKS
CONTRACTS="none" LIGHT=1 KERNELS=0 AB="plumb $E $E@$S=0 $E@$K=4" OUT=/tmp/ab bash tools/device/ab-builds.sh > /dev/null
cp /tmp/ab/checks.txt $R/bits.txt; cat $R/bits.txt | tee $OUT/bits.txt; echo "t=$SECONDS"
{
  echo "CUDA tests: $(timeout -k 5 100 $B/test_dsv4_forward-next-down-split2 --gtest_filter='*cuda*:Cuda*' 2>&1 | tee $R/cuda-tests.log | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')"
  for v in "$K=" "$K=4" "$S=0"; do
    echo "$v $(env $v timeout -k 5 60 $B/$E contract --backend cuda --only fp4_experts_cuda 2>&1 | tee "$R/contract-experts-${v//=/-}.txt" | grep -E '^fp4_experts')"
  done
  timeout -k 5 150 $B/$E contract --backend cuda > $R/contract.txt 2>&1
  grep -E "SUMMARY" $R/contract.txt
} | tee $R/tests.txt $OUT/tests.txt
echo "t=$SECONDS"
for v in "$K=" "$K=4" "$S=0"; do
  env $v timeout -k 5 80 $B/$E synth --only kernels > "$R/kernels-${v//=/-}.txt" 2>&1
  echo "$v"; grep -E "^experts" "$R/kernels-${v//=/-}.txt"
done | tee $R/classes.txt $OUT/classes.txt
echo "t=$SECONDS"
for v in "$K=" "$K=4" "$S=0"; do
  env $v PLUMB_CUDA_KERNEL_TIMES=1 timeout -k 5 60 $B/$E synth --only layers --rows 1 --repeats 4 > /tmp/kt.txt 2>&1
  sed -n '/kernel (device time)/,$p' /tmp/kt.txt > "$R/kernel-times-1row-${v//=/-}.txt"
  echo "$v: $(grep -E '^experts_pass ' "$R/kernel-times-1row-${v//=/-}.txt" | awk '{printf "%s %s %s us; ", $1, $2, $5}')"
done | tee $R/timer.txt $OUT/timer.txt
echo "t=$SECONDS"
STOP_AFTER=$((480 - SECONDS)) OUT=$R bash tools/device/alternate.sh $E $E@$S=0 > /dev/null
cp $R/medians.txt $OUT/; cat $R/medians.txt
tar -czf $OUT/call.tgz -C $R .
echo "t=$SECONDS"
