#!/usr/bin/env bash
# Session 27 call 1 (carry [".device"], timeout_s 600): session 26's prepared call
# (data/2026-12-02-session26/next/call-dynamic-item-loop.sh), plus ncu of each experts launch of the "same 6 experts"
# class at 1 and 2 rows (why 2 rows take 49 us against 41.5 at one).
# Prepared in session 26 for the next one (carry [".device"], timeout_s 600). Two experts changes that keep every
# item's arithmetic, so the bits must stay cf824e82009a0f99:
# - main's item loop in the adaptive kernels (b7f8c78, PLUMB_EXPERTS_ITEM_LOOP=0/1/2; merged on session 26 call 3's
#   kernel classes, not yet measured in the round against its own switch);
# - branch next-experts-dynamic (experts-dynamic.patch here): a capped grid whose warps take further items from a
#   launch counter (PLUMB_EXPERTS_DYNAMIC; PLUMB_EXPERTS_GRID_CAP=8 forces the counter on the tiny test shapes).
# Build here, from main: scripts/device-bundle-ab next-experts-dynamic -- test_dsv4_forward, then remove
# .device/bin/test_dsv4_forward.gz (main's). Answers: bits; the CUDA tests and the experts' contract entry on the
# branch, with the resident cap and with 8 blocks; the experts' kernel classes; the round alternated: the branch
# against its switch off, main against its loop off.
set -uo pipefail
source tools/device/call_start.sh
E=plumb-next-experts-dynamic D=PLUMB_EXPERTS_DYNAMIC L=PLUMB_EXPERTS_ITEM_LOOP C=PLUMB_EXPERTS_GRID_CAP
bits_against_main plumb@$L=0 plumb@$L=2 $E $E@$D=0 $E@$C=8
{
  for v in "$C=0" "$C=8"; do
    echo "$v CUDA tests: $(env $v timeout -k 5 100 $B/test_dsv4_forward-next-experts-dynamic --gtest_filter='*cuda*:Cuda*' 2>&1 | tee "$R/cuda-tests-${v//=/-}.log" | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')"
    echo "$v $(env $v timeout -k 5 60 $B/$E contract --backend cuda --only fp4_experts_cuda 2>&1 | tee "$R/contract-experts-${v//=/-}.txt" | grep -E '^fp4_experts')"
  done
} | tee $R/tests.txt $OUT/tests.txt
echo "t=$SECONDS"
for v in "$E $D=1" "$E $D=0" "plumb $L=1" "plumb $L=0"; do
  set -- $v; t="$1-${2//=/-}"
  env $2 timeout -k 5 80 $B/$1 synth --only kernels > "$R/kernels-$t.txt" 2>&1
  echo "$t"; grep -E "^experts" "$R/kernels-$t.txt"
done | tee $R/classes.txt $OUT/classes.txt
echo "t=$SECONDS"
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for rows in 1 2; do
  # The classes' first call is the same-6 cell's warm-up replay: its five launches, then the first timed call's.
  timeout -k 5 90 $NCU --clock-control none --cache-control none \
    --kernel-name regex:"prepare_experts|experts_pass|act_quant|combine_kernel" --launch-count 10 \
    --section SpeedOfLight --section LaunchStats --metrics smsp__inst_executed.sum,dram__sectors_read.sum \
    $B/plumb synth --only kernels --rows $rows --repeats 1 > "$R/ncu-experts-rows$rows.txt" 2>&1
  echo "== rows $rows"
  grep -E "^  [^ ]|Duration|DRAM Throughput|Grid Size|inst_executed.sum|dram__sectors_read" "$R/ncu-experts-rows$rows.txt" \
    | sed -E 's/\(anonymous namespace\):://g; s/plumb::cuda::(ops::)?//g; s/\(PassArgs\)//; s/, Context.*//; s/ +/ /g'
done | tee $R/ncu-summary.txt $OUT/ncu-summary.txt
echo "t=$SECONDS"
STOP_AFTER=$((510 - SECONDS)) OUT=$R bash tools/device/alternate.sh $E $E@$D=0 plumb plumb@$L=0 > /dev/null
python3 tools/device/alternation_table.py $R/rounds.txt plumb plumb@$L=0 >> $R/medians.txt  # main against its loop off
cp $R/medians.txt $OUT/; cat $R/medians.txt
tar -czf $OUT/call.tgz -C $R .
echo "t=$SECONDS"
