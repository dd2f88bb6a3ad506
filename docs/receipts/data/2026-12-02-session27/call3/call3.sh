#!/usr/bin/env bash
# Session 27 call 3 (carry [".device"], timeout_s 600). Built from main (dynamic grid merged, 93804f2) with
# scripts/device-bundle-ab next-experts-spread -- test_dsv4_forward, main's test binary removed. The branch deals a
# capped grid's first-turn units across its blocks (PLUMB_EXPERTS_SPREAD); PLUMB_EXPERTS_ITEM_LOOP=2 loops (and so
# caps) every pass kernel, the even-columns kernels of 1-4 rows included. Call 2's ncu: 2 rows on the same 6 experts
# ran each pass 20% longer than one row with the same instructions and DRAM sectors, their grid (768 blocks, 1.45
# waves) twice one row's, its second half empty. Answers: bits; the CUDA tests and the experts' entry with every
# kernel capped at 8 blocks; the experts' classes in four settings; ncu of the 2-row gate/up pass with per-SM
# minimum and maximum (is the active work on a subset of the multiprocessors?); the round alternated.
set -uo pipefail
source tools/device/call_start.sh
E=plumb-next-experts-spread S=PLUMB_EXPERTS_SPREAD L=PLUMB_EXPERTS_ITEM_LOOP C=PLUMB_EXPERTS_GRID_CAP
bits_against_main $E $E@$S=0 $E@$L=2 $E@$L=2,$S=0 $E@$L=2,$C=8
{
  echo "$L=2 $C=8 CUDA tests: $(env $L=2 $C=8 timeout -k 5 100 $B/test_dsv4_forward-next-experts-spread --gtest_filter='*cuda*:Cuda*' 2>&1 | tee "$R/cuda-tests.log" | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')"
  echo "$L=2 $C=8 $(env $L=2 $C=8 timeout -k 5 60 $B/$E contract --backend cuda --only fp4_experts_cuda 2>&1 | tee "$R/contract-experts.txt" | grep -E '^fp4_experts')"
} | tee $R/tests.txt $OUT/tests.txt
echo "t=$SECONDS"
for v in "$S=1 $L=1" "$S=0 $L=1" "$S=1 $L=2" "$S=0 $L=2"; do
  t="${v//[ =]/-}"
  env $v timeout -k 5 80 $B/$E synth --only kernels > "$R/kernels-$t.txt" 2>&1
  echo "$v"; grep -E "^experts" "$R/kernels-$t.txt"
done | tee $R/classes.txt $OUT/classes.txt
echo "t=$SECONDS"
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for v in "$S=0 $L=1" "$S=0 $L=2" "$S=1 $L=2"; do
  t="${v//[ =]/-}"
  env $v timeout -k 5 60 $NCU --clock-control none --cache-control none --kernel-name regex:experts_pass --launch-count 2 \
    --section SpeedOfLight --metrics sm__inst_executed.min,sm__inst_executed.max,sm__inst_executed.avg,sm__cycles_active.min,sm__cycles_active.max,sm__cycles_active.avg,sm__warps_active.avg.per_cycle_active \
    $B/$E synth --only kernels --rows 2 --repeats 1 > "$R/ncu-rows2-$t.txt" 2>&1
  echo "== $v"
  grep -E "^  [^ ]|Duration|sm__" "$R/ncu-rows2-$t.txt" | sed -E 's/\(anonymous namespace\):://g; s/plumb::cuda::(ops::)?//g; s/\(PassArgs\)//; s/, Context.*//; s/ +/ /g'
done | tee $R/ncu-summary.txt $OUT/ncu-summary.txt
echo "t=$SECONDS"
STOP_AFTER=$((515 - SECONDS)) OUT=$R bash tools/device/alternate.sh $E $E@$S=0 $E@$L=2 > /dev/null
cp $R/medians.txt $OUT/; cat $R/medians.txt
tar -czf $OUT/call.tgz -C $R .
echo "t=$SECONDS"
