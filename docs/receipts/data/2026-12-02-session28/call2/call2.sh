#!/usr/bin/env bash
# Session 28 call 2 (carry [".device"], timeout_s 600). Branch next-experts-fit: a capped experts grid fits itself on
# the device to the blocks its launch's items need (PLUMB_EXPERTS_FIT), the 16-row launch of a pass split by size loops
# (PLUMB_EXPERTS_LOOP16), the even kernels of 2-4 rows loop (PLUMB_EXPERTS_EVEN_LOOP). Same items, same arithmetic:
# the bits must equal main's in every setting.
# Built here: scripts/device-bundle-ab next-experts-fit -- test_dsv4_forward, then .device/bin/test_dsv4_forward.gz
# (main's) removed.
set -uo pipefail
source tools/device/call_start.sh
E=plumb-next-experts-fit F=PLUMB_EXPERTS_FIT L=PLUMB_EXPERTS_LOOP16 V=PLUMB_EXPERTS_EVEN_LOOP C=PLUMB_EXPERTS_GRID_CAP
bits_against_main $E $E@$F=0 $E@$L=0 $E@$V=0 $E@$C=8
{
  for v in "$C=0" "$C=8"; do
    echo "$v CUDA tests: $(env $v timeout -k 5 100 $B/test_dsv4_forward-next-experts-fit --gtest_filter='*cuda*:Cuda*' 2>&1 | tee "$R/cuda-tests-${v//=/-}.log" | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')"
    echo "$v $(env $v timeout -k 5 60 $B/$E contract --backend cuda --only fp4_experts_cuda 2>&1 | tee "$R/contract-experts-${v//=/-}.txt" | grep -E '^fp4_experts')"
  done
} | tee $R/tests.txt $OUT/tests.txt
echo "t=$SECONDS"
# All on; without the fit; without the 16-row loop; all off (main's code paths).
for v in "$F=1 $L=1 $V=1" "$F=0 $L=1 $V=1" "$F=1 $L=0 $V=1" "$F=0 $L=0 $V=0"; do
  t="${v//[ =]/-}"
  env $v timeout -k 5 80 $B/$E synth --only kernels > "$R/kernels-$t.txt" 2>&1
  echo "$v"; grep -E "^experts" "$R/kernels-$t.txt"
done | tee $R/classes.txt $OUT/classes.txt
echo "t=$SECONDS"
STOP_AFTER=$((470 - SECONDS)) OUT=$R bash tools/device/alternate.sh $E $E@$F=0,$L=0,$V=0 > /dev/null
cp $R/medians.txt $OUT/; cat $R/medians.txt
tar -czf $OUT/call.tgz -C $R .
echo "t=$SECONDS"
