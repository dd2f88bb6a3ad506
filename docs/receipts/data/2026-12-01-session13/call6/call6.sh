#!/usr/bin/env bash
# Session 13 call 6: main (43d0444) against next-dense-rows (892401a, NOT yet run on a GPU): dense_linear loads every
# row's activations of a step before any row's products. Bits, its contract and CUDA tests, kernel classes and the
# round (ab-builds), the round alternating at 1, 8 and 16 rows, and the dense kernels of a CSA/4 layer at 16 rows.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
S=plumb-next-dense-rows
CONTRACTS="$S" LIGHT=1 AB="plumb $S" bash tools/device/ab-builds.sh
R=$(mktemp -d)
echo "next-dense-rows CUDA tests: $(timeout -k 5 120 $B/test_dsv4_forward-next-dense-rows --gtest_filter='*cuda*:Cuda*' 2>&1 | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')" | tee $R/tests.txt
for rep in 1 2; do for v in plumb "$S"; do
  timeout -k 5 60 $B/$v synth --only layers --rows 1 8 16 --repeats 10 > $R/layers-$v-$rep.txt 2>&1
  echo "$v rep $rep: $(grep -E '^43' $R/layers-$v-$rep.txt | awk '{printf "%s ", $(NF-3)}')"
done; done | tee $R/rounds.txt
echo "t=$SECONDS"
for v in plumb "$S"; do
  PLUMB_CUDA_GRAPHS=0 timeout -k 5 60 /usr/local/cuda/bin/ncu --clock-control none --kernel-name regex:'dense_linear' --launch-count 8 \
    --metrics gpu__time_duration.sum,smsp__inst_executed.sum,launch__registers_per_thread \
    $B/$v synth --only layers --rows 16 --repeats 1 --config .device/csa-config.json > $R/ncu-$v.txt 2>&1
  echo "-- $v"; grep -E "^  [^ ]|gpu__time_duration|inst_executed|registers" $R/ncu-$v.txt | sed -E 's/\(anonymous namespace\):://g; s/plumb::cuda::(ops::)?//g; s/\(.*\) \(/ (/; s/, Context.*//; s/ +/ /g' | paste - - - - | cut -c1-190
done | tee $R/ncu-summary.txt
tar -czf $OUT/call6-extra.tgz -C $R .; cp $R/tests.txt $R/rounds.txt $R/ncu-summary.txt $OUT/
echo "t=$SECONDS"
