#!/usr/bin/env bash
# Session 13 call 3: main (43d0444: the FP8 block sum and next-s13b merged) against next-s13c (built, NOT yet run on
# a GPU): the FP8 kernels' first MMA of a K block without the emulation's add of a zero C, and the experts' down
# pass likewise (PLUMB_EXPERTS_DOWN_NO_C=0 turns the latter off). Bits, the contract and CUDA tests of next-s13c,
# kernel classes; the round alternating twice; ncu of the FP8 and experts kernels; plumb synth --json of next-s13c.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
S=plumb-next-s13c
CONTRACTS="$S" SETTINGS_KERNELS=1 LIGHT=1 AB="plumb $S $S@PLUMB_EXPERTS_DOWN_NO_C=0" bash tools/device/ab-builds.sh
R=$(mktemp -d)
echo "next-s13c CUDA tests: $(timeout -k 5 120 $B/test_dsv4_forward-next-s13c --gtest_filter='*cuda*:Cuda*' 2>&1 | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')" | tee $R/tests.txt
for rep in 1 2; do for v in plumb "$S" "$S@PLUMB_EXPERTS_DOWN_NO_C=0"; do t=${v//[@=]/_}; e=""; [[ $v == *@* ]] && e=${v#*@}
  env $e timeout -k 5 60 $B/${v%%@*} synth --only layers --rows 1 16 --repeats 10 > $R/layers-$t-$rep.txt 2>&1
  echo "$v rep $rep: $(grep -E '^43' $R/layers-$t-$rep.txt | awk '{printf "%s ", $(NF-3)}')"
done; done | tee $R/rounds.txt
echo "t=$SECONDS"
for v in plumb "$S" "$S@PLUMB_EXPERTS_DOWN_NO_C=0"; do t=${v//[@=]/_}; e=""; [[ $v == *@* ]] && e=${v#*@}
  env $e PLUMB_CUDA_GRAPHS=0 timeout -k 5 90 /usr/local/cuda/bin/ncu --clock-control none --kernel-name regex:'experts_pass|fp8_linear' \
    --launch-count 14 --metrics gpu__time_duration.sum,smsp__inst_executed.sum \
    $B/${v%%@*} synth --only layers --rows 1 --repeats 1 > $R/ncu-$t.txt 2>&1
  echo "-- $v"; grep -E "^  [^ ]|gpu__time_duration|inst_executed" $R/ncu-$t.txt | sed -E 's/\(anonymous namespace\):://g; s/plumb::cuda::(ops::)?//g; s/\(.*\) \(/ (/; s/, Context.*//; s/ +/ /g' | paste - - - | cut -c1-160
done | tee $R/ncu-summary.txt
echo "t=$SECONDS"
timeout -k 5 200 $B/$S synth --json $R/synth-next-s13c.json > $R/synth-next-s13c.txt 2>&1; grep -vE "^(layers|kernels):" $R/synth-next-s13c.txt | grep -E "^(experts|fp8 rows|43-layer)" | head -60
tar -czf $OUT/call3-extra.tgz -C $R .; cp $R/tests.txt $R/rounds.txt $R/ncu-summary.txt $OUT/
echo "t=$SECONDS"
