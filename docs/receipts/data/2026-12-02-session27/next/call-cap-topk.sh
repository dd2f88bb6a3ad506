#!/usr/bin/env bash
# Prepared in session 27 for the next one (carry [".device"], timeout_s 600). Branch next-experts-cap-topk
# (experts-cap-topk.patch here; it applies to main from 4ebb0ff on): the even-columns kernels of 2-4 rows loop
# (PLUMB_EXPERTS_EVEN_LOOP), so their grid is capped and dealt across the blocks, and a capped grid holds at most top_k
# experts' items (PLUMB_EXPERTS_CAP_TOPK), so rows on few experts run one full turn laid out as one row's. Same items,
# same arithmetic: the bits must stay cf824e82009a0f99. Session 27's ncu (call 2, call 3): 2 rows on the same 6 experts
# launch 768 blocks for 384 blocks' work and some multiprocessors get twice the others' instructions (52-101 K in
# gate/up; one row's 384 blocks: 74-76 K on most). Expected if that is the whole story: 2-4 rows on the same 6 near one
# row's 41 us (48.6-48.9 now); the risk: routed apart, fewer warps a multiprocessor (a top_k cap of 384 blocks against
# 528 resident) over more turns.
# Build here, from main: scripts/device-bundle-ab next-experts-cap-topk -- test_dsv4_forward, then remove
# .device/bin/test_dsv4_forward.gz (main's).
set -uo pipefail
source tools/device/call_start.sh
E=plumb-next-experts-cap-topk T=PLUMB_EXPERTS_CAP_TOPK V=PLUMB_EXPERTS_EVEN_LOOP C=PLUMB_EXPERTS_GRID_CAP
bits_against_main $E $E@$T=0 $E@$V=0 $E@$C=8
{
  for v in "$C=0" "$C=8"; do
    echo "$v CUDA tests: $(env $v timeout -k 5 100 $B/test_dsv4_forward-next-experts-cap-topk --gtest_filter='*cuda*:Cuda*' 2>&1 | tee "$R/cuda-tests-${v//=/-}.log" | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')"
    echo "$v $(env $v timeout -k 5 60 $B/$E contract --backend cuda --only fp4_experts_cuda 2>&1 | tee "$R/contract-experts-${v//=/-}.txt" | grep -E '^fp4_experts')"
  done
} | tee $R/tests.txt $OUT/tests.txt
echo "t=$SECONDS"
for v in "$T=1 $V=1" "$T=0 $V=1" "$T=1 $V=0" "$T=0 $V=0"; do
  t="${v//[ =]/-}"
  env $v timeout -k 5 80 $B/$E synth --only kernels > "$R/kernels-$t.txt" 2>&1
  echo "$v"; grep -E "^experts" "$R/kernels-$t.txt"
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
# 16 rows on the same 6: the large (16-row) launches' grid is 640 blocks in 1.62 waves for 384 blocks' work, as the
# 2-row grids were: is their work uneven over the multiprocessors too? (4 launches: gate/up's small and large, then
# down's.)
timeout -k 5 60 $NCU --clock-control none --cache-control none --kernel-name regex:experts_pass --launch-count 4 \
  --metrics sm__inst_executed.min,sm__inst_executed.max,sm__inst_executed.avg,gpu__time_duration.sum \
  $B/$E synth --only kernels --rows 16 --repeats 1 > "$R/ncu-rows16.txt" 2>&1
grep -E "^  [^ ]|sm__|gpu__" "$R/ncu-rows16.txt" | sed -E 's/\(anonymous namespace\):://g; s/plumb::cuda::(ops::)?//g; s/, Context.*//; s/ +/ /g' \
  | tee -a $R/ncu-summary.txt $OUT/ncu-summary.txt
echo "t=$SECONDS"
STOP_AFTER=$((515 - SECONDS)) OUT=$R bash tools/device/alternate.sh $E $E@$T=0,$V=0 $E@$T=0 > /dev/null
cp $R/medians.txt $OUT/; cat $R/medians.txt
tar -czf $OUT/call.tgz -C $R .
echo "t=$SECONDS"
