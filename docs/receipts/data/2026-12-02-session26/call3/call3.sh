#!/usr/bin/env bash
# Session 26, call 3 (carry [".device"], timeout_s 370): the experts' pass grids capped at the blocks the GPU holds
# at once, their warps looping over the (slot, tile, split) items (branch next-experts-persistent, one commit on main
# 8cd7dc4, PLUMB_EXPERTS_PERSISTENT). Built with scripts/device-bundle-ab next-experts-persistent --
# test_dsv4_forward (main's test binary removed). Answers: bits against main (the same items and arithmetic, so
# cf824e82009a0f99); the CUDA tests and the experts' contract entry on the branch; the experts' kernel classes with
# the cap on and off and main's; the round alternated, the cap on against off (the loop is in the kernel either way).
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
R=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt
E=plumb-next-experts-persistent S=PLUMB_EXPERTS_PERSISTENT
CONTRACTS="none" LIGHT=1 KERNELS=0 AB="plumb $E $E@$S=0" OUT=/tmp/ab bash tools/device/ab-builds.sh > /dev/null
cp /tmp/ab/checks.txt $R/bits.txt; cat $R/bits.txt | tee $OUT/bits.txt; echo "t=$SECONDS"
{
  echo "CUDA tests: $(timeout -k 5 100 $B/test_dsv4_forward-next-experts-persistent --gtest_filter='*cuda*:Cuda*' 2>&1 | tee $R/cuda-tests.log | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')"
  echo "$S=1 $(timeout -k 5 60 $B/$E contract --backend cuda --only fp4_experts_cuda 2>&1 | tee "$R/contract-experts.txt" | grep -E '^fp4_experts')"
} | tee $R/tests.txt $OUT/tests.txt
echo "t=$SECONDS"
for v in "$E $S=1" "$E $S=0" "plumb PLUMB_NONE=1"; do
  set -- $v; t="$1-${2//=/-}"
  env $2 timeout -k 5 80 $B/$1 synth --only kernels > "$R/kernels-$t.txt" 2>&1
  echo "$t"; grep -E "^experts" "$R/kernels-$t.txt"
done | tee $R/classes.txt $OUT/classes.txt
echo "t=$SECONDS"
STOP_AFTER=$((320 - SECONDS)) OUT=$R bash tools/device/alternate.sh $E $E@$S=0 > /dev/null
cp $R/medians.txt $OUT/; cat $R/medians.txt
tar -czf $OUT/call.tgz -C $R .
echo "t=$SECONDS"
