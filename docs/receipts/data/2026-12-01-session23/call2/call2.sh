#!/usr/bin/env bash
# Session 23, call 2 (carry [".device"], timeout_s 600): wo_a on the matrix unit (branch next-wo-a-mma, e795232 on
# main 2135e34; switch PLUMB_DENSE_FP8_MMA). Built with scripts/device-bundle-ab next-wo-a-mma -- test_dsv4_forward
# from main, main's test binary removed. Answers: bits against main (the MMA build must differ, its switch off must
# not) and its own chunk 1 against chunk 16; the CUDA tests (exactness across chunks, batches, drafts) on the MMA
# build; the whole contract; wo_a's kernel class both ways; the kernel timer at 1 and 16 rows; the layers at 64 and
# 256 rows both ways; then the round alternated against the switch.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
R=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt
E=plumb-next-wo-a-mma S=PLUMB_DENSE_FP8_MMA
CONTRACTS="none" LIGHT=1 KERNELS=0 AB="plumb $E $E@$S=0" OUT=$R bash tools/device/ab-builds.sh > /dev/null
{ cat $R/checks.txt
  for c in 1 16; do echo "$E chunk $c sha256: $(cat /tmp/$E-$c.bin /tmp/$E-$c.mtp | sha256sum | cut -c1-16)"; done
} | tee $R/bits.txt; echo "t=$SECONDS"
{
  echo "CUDA tests: $(timeout -k 5 150 $B/test_dsv4_forward-next-wo-a-mma --gtest_filter='*cuda*:Cuda*' 2>&1 | tee $R/cuda-tests.log | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')"
  grep -E "^\[  FAILED" $R/cuda-tests.log | head
  timeout -k 5 150 $B/$E contract --backend cuda > $R/contract.txt 2>&1
  grep -E "dense_linear|SUMMARY" $R/contract.txt
} | tee $R/tests.txt
echo "t=$SECONDS"
for v in "$S=1" "$S=0"; do t=${v//=/-}
  env $v timeout -k 5 90 $B/$E synth --only kernels > "$R/kernels-$t.txt" 2>&1
  echo "$v"; grep -E "^dense fp8|^fp8 rows +(wq_b|wo_b)" "$R/kernels-$t.txt"
done | tee $R/wo_a.txt
echo "t=$SECONDS"
for rows in 1 16; do for v in "$S=1" "$S=0"; do t=${v//=/-}
  env $v PLUMB_CUDA_KERNEL_TIMES=1 timeout -k 5 60 $B/$E synth --only layers --rows $rows --repeats 4 > /tmp/kt.txt 2>&1
  sed -n '/kernel (device time)/,$p' /tmp/kt.txt > "$R/kernel-times-${rows}rows-$t.txt"
  echo "$rows rows $v: $(grep -E '^(fp8_dense_mma|dense_linear) +[0-9]+x1x1 ' "$R/kernel-times-${rows}rows-$t.txt" | awk '{printf "%s %s %s us; ", $1, $2, $5}')"
done; done | tee $R/timer.txt
echo "t=$SECONDS"
for v in "$S=1" "$S=0"; do t=${v//=/-}
  env $v timeout -k 5 80 $B/$E synth --only layers --rows 64 256 --repeats 3 > "$R/prefill-$t.txt" 2>&1
  echo "$v"; grep -E "^43" "$R/prefill-$t.txt"
done | tee $R/prefill.txt
echo "t=$SECONDS"
STOP_AFTER=$((515 - SECONDS)) OUT=$R bash tools/device/alternate.sh $E $E@$S=0 > /dev/null
cat $R/medians.txt
tar -czf $OUT/call.tgz -C $R .
cp $R/bits.txt $R/tests.txt $R/wo_a.txt $R/timer.txt $R/prefill.txt $R/medians.txt $OUT/
echo "t=$SECONDS"
