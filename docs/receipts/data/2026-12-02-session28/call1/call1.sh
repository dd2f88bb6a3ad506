#!/usr/bin/env bash
# Session 28 call 1 (carry [".device"], timeout_s 600). Branch next-combined: session 27's prepared experts change
# (PLUMB_EXPERTS_CAP_TOPK, PLUMB_EXPERTS_EVEN_LOOP: data/2026-12-02-session27/next/) and the two-launch FP8 linear's
# first two weight blocks loaded before the PDL wait (PLUMB_FP8_WEIGHTS_FIRST). Every switch keeps the same
# arithmetic: the bits must equal main's in every setting.
# Built here: scripts/device-bundle-ab next-combined -- test_dsv4_forward, then .device/bin/test_dsv4_forward.gz
# (main's) removed.
set -uo pipefail
source tools/device/call_start.sh
E=plumb-next-combined T=PLUMB_EXPERTS_CAP_TOPK V=PLUMB_EXPERTS_EVEN_LOOP C=PLUMB_EXPERTS_GRID_CAP W=PLUMB_FP8_WEIGHTS_FIRST
bits_against_main $E $E@$T=0 $E@$V=0 $E@$C=8 $E@$W=0
{
  for v in "$C=0" "$C=8"; do
    echo "$v CUDA tests: $(env $v timeout -k 5 100 $B/test_dsv4_forward-next-combined --gtest_filter='*cuda*:Cuda*' 2>&1 | tee "$R/cuda-tests-${v//=/-}.log" | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')"
    echo "$v $(env $v timeout -k 5 60 $B/$E contract --backend cuda --only fp4_experts_cuda 2>&1 | tee "$R/contract-experts-${v//=/-}.txt" | grep -E '^fp4_experts')"
  done
  echo "$(timeout -k 5 60 $B/$E contract --backend cuda --only fp8_linear_cuda 2>&1 | tee "$R/contract-fp8.txt" | grep -E '^fp8_linear')"
} | tee $R/tests.txt $OUT/tests.txt
echo "t=$SECONDS"
# Four settings: all on; the cap without top_k; neither experts change and no weights first (main's code paths);
# neither experts change with weights first.
for v in "$T=1 $V=1 $W=1" "$T=0 $V=1 $W=1" "$T=0 $V=0 $W=0" "$T=0 $V=0 $W=1"; do
  t="${v//[ =]/-}"
  env $v timeout -k 5 80 $B/$E synth --only kernels > "$R/kernels-$t.txt" 2>&1
  echo "$v"; grep -E "^experts|wq_b|wo_b" "$R/kernels-$t.txt"
done | tee $R/classes.txt $OUT/classes.txt
echo "t=$SECONDS"
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for v in "$T=1 $V=1" "$T=0 $V=0"; do  # the per-multiprocessor spread of the 2-row passes, on and off
  t="${v//[ =]/-}"
  env $v timeout -k 5 60 $NCU --clock-control none --cache-control none --kernel-name regex:experts_pass --launch-count 2 \
    --metrics sm__inst_executed.min,sm__inst_executed.max,sm__inst_executed.avg,sm__cycles_active.min,sm__cycles_active.max,gpu__time_duration.sum \
    $B/$E synth --only kernels --rows 2 --repeats 1 > "$R/ncu-rows2-$t.txt" 2>&1
  echo "== $v"
  grep -E "^  [^ ]|sm__|gpu__" "$R/ncu-rows2-$t.txt" | sed -E 's/\(anonymous namespace\):://g; s/plumb::cuda::(ops::)?//g; s/, Context.*//; s/ +/ /g'
done | tee $R/ncu-summary.txt $OUT/ncu-summary.txt
echo "t=$SECONDS"
STOP_AFTER=$((520 - SECONDS)) OUT=$R bash tools/device/alternate.sh $E $E@$T=0,$V=0 $E@$W=0 > /dev/null
cp $R/medians.txt $OUT/; cat $R/medians.txt
tar -czf $OUT/call.tgz -C $R .
echo "t=$SECONDS"
