#!/usr/bin/env bash
# Session 16 call 5 (carry [".device"], timeout_s 400): main (e1f5b3b) against next-pv-angle (8ff1ee1), built here with
# `scripts/device-bundle-ab next-pv-angle -- test_dsv4_forward`, not yet run on a GPU: the P.V's output angles in
# shared memory instead of registers live across the kernel (calls 2-4: the one-row CSA P.V 26 -> 30-31 us in
# isolation since the fused rope ops, on or off). Same bits by design. Bits at chunk 1 and 16, the branch's contract
# and CUDA tests, ncu of the P.V at 1 row for main and the branch with the switch on and off, and the round at 1, 2,
# 4 and 16 rows and 4 slots with the builds alternating twice.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
S=plumb-next-pv-angle
VARIANTS="plumb $S"
CONTRACTS="$S" LIGHT=1 AB="$VARIANTS" bash tools/device/ab-builds.sh
R=$(mktemp -d)
echo "next-pv-angle CUDA tests: $(timeout -k 5 150 $B/test_dsv4_forward-next-pv-angle --gtest_filter='*cuda*:Cuda*' 2>&1 | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')" | tee $R/tests.txt
echo "t=$SECONDS"
NCU="/usr/local/cuda/bin/ncu --clock-control none --metrics gpu__time_duration.sum"
for v in plumb $S $S@PLUMB_FUSED_ROPE=0; do t=${v//[@=,]/_}; e=""; [[ $v == *@* ]] && e=${v#*@}
  env $e PLUMB_CUDA_GRAPHS=0 timeout -k 5 90 $NCU --kernel-name regex:'attention_pv' --launch-count 4 \
    $B/${v%%@*} synth --only layers --rows 1 --repeats 1 --config .device/csa-config.json > $R/ncu-$t-1.txt 2>&1
  echo "-- $v, 1 row"; grep -E "^  [^ ]|gpu__time_duration" $R/ncu-$t-1.txt | sed -E 's/\(anonymous namespace\):://g; s/plumb::cuda::(ops::)?//g; s/\(.*\) \(/ (/; s/, Context.*//; s/ +/ /g' | paste - - | cut -c1-140
done | tee $R/ncu-summary.txt
echo "t=$SECONDS"
cmd() { local e=""; [[ $1 == *@* ]] && e=${1#*@}; echo "env ${e//,/ } $B/${1%%@*}"; }
for rep in 1 2; do for v in $VARIANTS; do t=${v//[@=,]/_}
  timeout -k 5 60 $(cmd $v) synth --only layers --rows 1 2 4 16 --repeats 10 > $R/layers-$t-$rep.txt 2>&1
  echo "$v rep $rep: $(grep -E '^43-layer round +1 slot, as drawn' $R/layers-$t-$rep.txt | awk '{printf "%s ", $(NF-3)}')| 4 slots $(grep -E '^43-layer round +4 slots, as drawn' $R/layers-$t-$rep.txt | awk '{print $(NF-3)}')"
done; done | tee $R/rounds.txt
tar -czf $OUT/call5-extra.tgz -C $R .; cp $R/tests.txt $R/rounds.txt $R/ncu-summary.txt $OUT/
echo "t=$SECONDS"
