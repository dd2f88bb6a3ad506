#!/usr/bin/env bash
# Session 13 call 1: main (c29c408) against next-s13 (built, NOT yet run on a GPU), whose new paths each have a
# switch (same bits either way):
#   attention_pv staged through shared memory with cp.async (PLUMB_PV_STAGED=0 turns it off)
#   the two-launch FP8 kernel sums 2-8 K splits in its block (PLUMB_FP8_BLOCK_SUM=0 turns it off)
#   experiments, default off: PLUMB_EXPERTS_PASS16=1 (experts at 9-16 rows in passes of 16), PLUMB_FP8_PASS8=1
#   (the two-launch FP8 kernel at 9-16 rows in passes of 8)
# Bits at chunk 1 and 16 against main for every variant, the contract and CUDA tests of next-s13, kernel classes
# and layers for every variant, then ncu of the FP8 and attention kernels of one CSA/4 layer.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
S=plumb-next-s13
CONTRACTS="$S" SETTINGS_KERNELS=1 LIGHT=1 \
  AB="plumb $S $S@PLUMB_PV_STAGED=0 $S@PLUMB_FP8_BLOCK_SUM=0 $S@PLUMB_EXPERTS_PASS16=1 $S@PLUMB_FP8_PASS8=1" \
  bash tools/device/ab-builds.sh
R=$(mktemp -d)
echo "next-s13 CUDA tests: $(timeout -k 5 120 $B/test_dsv4_forward-next-s13 --gtest_filter='*cuda*:Cuda*' 2>&1 | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')" | tee $R/tests.txt
for v in plumb "$S" "$S@PLUMB_PV_STAGED=0" "$S@PLUMB_FP8_BLOCK_SUM=0"; do t=${v//[@=]/_}; e=""; [[ $v == *@* ]] && e=${v#*@}
  env $e PLUMB_CUDA_GRAPHS=0 timeout -k 5 90 /usr/local/cuda/bin/ncu --clock-control none --kernel-name regex:'fp8_linear_kernel|attention_pv|attention_logits' \
    --launch-count 5 --metrics gpu__time_duration.sum,launch__registers_per_thread \
    $B/${v%%@*} synth --only layers --rows 1 --repeats 1 --config .device/csa-config.json > $R/ncu-$t.txt 2>&1
  echo "-- $v"; grep -E "^  [^ ]|gpu__time_duration" $R/ncu-$t.txt | sed -E 's/\(anonymous namespace\):://g; s/plumb::cuda::(ops::)?//g; s/\(.*\) \(/ (/; s/, Context.*//; s/ +/ /g' | paste - - | cut -c1-140
done | tee $R/ncu-summary.txt
PLUMB_CUDA_KERNEL_TIMES=1 timeout -k 5 60 $B/plumb synth --only layers --rows 1 --repeats 4 > $R/kt-main.txt 2>&1
sed -n '/kernel (device time)/,$p' $R/kt-main.txt > $R/kernel-times-main.txt; head -40 $R/kernel-times-main.txt
tar -czf $OUT/call1-extra.tgz -C $R .; cp $R/tests.txt $R/ncu-summary.txt $OUT/
echo "t=$SECONDS"
