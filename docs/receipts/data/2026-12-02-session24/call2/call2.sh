#!/usr/bin/env bash
# Session 24, call 2 (carry [".device"], timeout_s 600): the four prepared experiments merged (branch merge-s24 at
# 335d6af, on main f6011ee), the indexer's four-rows kernel from 3 query rows. Built from main with
# scripts/device-bundle-ab merge-s24 -- test_dsv4_forward, main's test binary removed. Answers: bits against main
# (chunk 1 and 16, and with the indexer's switch off); the CUDA tests; the whole contract; the kernel timer at 1 row
# (the indexer at 1 row and 4 slots); the layers at 64 and 256 rows both builds; plumb's kernel classes and the
# torch peer in the same call; then the round alternated against main.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
R=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt
E=plumb-merge-s24
CONTRACTS="none" LIGHT=1 KERNELS=0 AB="plumb $E $E@PLUMB_INDEXER_ROWS4=0" OUT=$R bash tools/device/ab-builds.sh > /dev/null
{ cat $R/checks.txt
  for c in 1 16; do echo "$E chunk $c sha256: $(cat /tmp/$E-$c.bin /tmp/$E-$c.mtp | sha256sum | cut -c1-16)"; done
} | tee $R/bits.txt; echo "t=$SECONDS"
{
  echo "CUDA tests: $(timeout -k 5 150 $B/test_dsv4_forward-merge-s24 --gtest_filter='*cuda*:Cuda*' 2>&1 | tee $R/cuda-tests.log | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')"
  grep -E "^\[  FAILED" $R/cuda-tests.log | head
  timeout -k 5 150 $B/$E contract --backend cuda > $R/contract.txt 2>&1
  grep -E "indexer|SUMMARY" $R/contract.txt
} | tee $R/tests.txt
echo "t=$SECONDS"
for v in plumb $E; do
  PLUMB_CUDA_KERNEL_TIMES=1 timeout -k 5 60 $B/$v synth --only layers --rows 1 --repeats 4 > /tmp/kt.txt 2>&1
  sed -n '/kernel (device time)/,$p' /tmp/kt.txt > "$R/kernel-times-1row-$v.txt"
  echo "$v: $(grep -E '^(indexer_scores|attention_logits|fp8_dense_mma) ' "$R/kernel-times-1row-$v.txt" | awk '{printf "%s %s %s us; ", $1, $2, $5}')"
done | tee $R/timer.txt
for v in plumb $E; do
  timeout -k 5 80 $B/$v synth --only layers --rows 64 256 --repeats 3 > "$R/prefill-$v.txt" 2>&1
  echo "$v"; grep -E "^43" "$R/prefill-$v.txt"
done | tee $R/prefill.txt
echo "t=$SECONDS"
timeout -k 5 60 $B/$E synth --only kernels > $R/kernels.txt 2>&1
PYTHONUNBUFFERED=1 timeout -k 5 90 python3 tools/device/synth_peer.py $R/synth_peer.json > $R/synth_peer.txt 2>&1
{ grep -E "^(fp8 rows|dense fp8) .* (1|8) |^experts" $R/kernels.txt
  grep -E "block-scaled .* (1|8) |grouped .* (1|8|16) |copy bandwidth" $R/synth_peer.txt; } | tee $R/classes.txt
echo "t=$SECONDS"
STOP_AFTER=$((480 - SECONDS)) OUT=$R bash tools/device/alternate.sh $E plumb > /dev/null
cat $R/medians.txt
tar -czf $OUT/call.tgz -C $R .
cp $R/bits.txt $R/tests.txt $R/timer.txt $R/prefill.txt $R/classes.txt $R/medians.txt $OUT/
echo "t=$SECONDS"
