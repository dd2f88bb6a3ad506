#!/usr/bin/env bash
# Session 24, call 3 (carry [".device"], timeout_s 600): attention logits blocks of 4, 8 or 16 heads (next-logit-heads
# at c05086b, on main 43f4c9e; PLUMB_LOGIT_HEADS=4/8/16 forces one, unset the rule picks). Built from main with
# scripts/device-bundle-ab next-logit-heads -- test_dsv4_forward, main's test binary removed. Answers: bits against
# main with the rule and each forced size; the CUDA tests with the rule and with 16; the whole contract with the rule
# (its release attention shapes at 16 rows take 16 heads a block, each row alone 4: gate 3 holds them bit-equal) and
# the attention entries with 8 and 16 forced; the kernel timer's logits at 16 and 1 row (with 4 slots) per size; one
# timer run at one row without PDL (each kernel's own time); then the round alternated against main. Each step writes
# to $OUT as it ends, in case the device time runs out first.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
R=$OUT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt
E=plumb-next-logit-heads H=PLUMB_LOGIT_HEADS
mkdir -p /tmp/ab
CONTRACTS="none" LIGHT=1 KERNELS=0 AB="plumb $E $E@$H=4 $E@$H=8 $E@$H=16" OUT=/tmp/ab bash tools/device/ab-builds.sh > /dev/null
cp /tmp/ab/checks.txt $R/bits.txt; cat $R/bits.txt; echo "t=$SECONDS"
{
  for v in "$H=" "$H=16"; do
    echo "CUDA tests $v: $(env $v timeout -k 5 100 $B/test_dsv4_forward-next-logit-heads --gtest_filter='*cuda*:Cuda*' 2>&1 | tee $R/cuda-tests-${v//=/-}.log | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')"
  done
  timeout -k 5 150 $B/$E contract --backend cuda > $R/contract.txt 2>&1
  grep -E "attention|SUMMARY" $R/contract.txt
  for v in 8 16; do for k in window_attention sparse_attention attention_rope; do
    echo "$H=$v $(env $H=$v timeout -k 5 60 $B/$E contract --backend cuda --only $k 2>&1 | grep -E "^$k ")"
  done; done
} | tee $R/tests.txt
echo "t=$SECONDS"
for rows in 16 1; do for v in "$H=" "$H=4" "$H=8" "$H=16"; do t=${v//=/-}
  env $v PLUMB_CUDA_KERNEL_TIMES=1 timeout -k 5 60 $B/$E synth --only layers --rows $rows --repeats 4 > /tmp/kt.txt 2>&1
  sed -n '/kernel (device time)/,$p' /tmp/kt.txt > "$R/kernel-times-${rows}rows-$t.txt"
  echo "$rows rows $v: $(grep -E '^attention_logits ' "$R/kernel-times-${rows}rows-$t.txt" | awk '{printf "%s %s us; ", $2, $5}')"
done; done | tee $R/timer.txt
PLUMB_CUDA_PDL=0 PLUMB_CUDA_KERNEL_TIMES=1 timeout -k 5 60 $B/$E synth --only layers --rows 1 --repeats 4 > /tmp/kt.txt 2>&1
sed -n '/kernel (device time)/,$p' /tmp/kt.txt > "$R/kernel-times-1row-no-pdl.txt"
echo "t=$SECONDS"
STOP_AFTER=$((430 - SECONDS)) OUT=/tmp/alt bash tools/device/alternate.sh $E plumb > /dev/null
cp /tmp/alt/rounds.txt /tmp/alt/medians.txt $R/; cat $R/medians.txt
echo "t=$SECONDS"
