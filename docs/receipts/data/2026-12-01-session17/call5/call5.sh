#!/usr/bin/env bash
# Session 17 call 5 (carry [".device"], timeout_s 300): which of the lean P.V parts (merged for the 32-key kernel in
# d3e3add) help the one-wave 64-key kernel, which took 26.5 -> 37.7 us with all three (call 3). next-pv-lean1 selects
# the one-wave kernel's parts with PLUMB_PV_LEAN_ONE_WAVE (1 keys, 2 logits, 4 exps, 6 logits and exps). Bits of
# each against main (d3e3add), ncu of the one-row P.V for each, the round at 1 and 4 rows twice, main's kernel classes.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
L=plumb-next-pv-lean1
VARIANTS="plumb $L@PLUMB_PV_LEAN_ONE_WAVE=1 $L@PLUMB_PV_LEAN_ONE_WAVE=2 $L@PLUMB_PV_LEAN_ONE_WAVE=4 $L@PLUMB_PV_LEAN_ONE_WAVE=6"
CONTRACTS="-" LIGHT=1 KERNELS=0 AB="$VARIANTS" bash tools/device/ab-builds.sh
echo "t=$SECONDS"
R=$(mktemp -d)
NCU="/usr/local/cuda/bin/ncu --clock-control none --metrics gpu__time_duration.sum"
for v in $VARIANTS; do t=${v//[@=,]/_}; e=""; [[ $v == *@* ]] && e=${v#*@}
  env $e PLUMB_CUDA_GRAPHS=0 timeout -k 5 60 $NCU --kernel-name regex:attention_pv --launch-count 4 \
    $B/${v%%@*} synth --only layers --rows 1 --repeats 1 --config .device/csa-config.json > $R/ncu-$t.txt 2>&1
  echo "-- $v: $(grep -E "gpu__time_duration" $R/ncu-$t.txt | awk '{printf "%s ", $NF}')"
done | tee $R/ncu-summary.txt
echo "t=$SECONDS"
cmd() { local e=""; [[ $1 == *@* ]] && e=${1#*@}; echo "env ${e//,/ } $B/${1%%@*}"; }
for rep in 1 2; do for v in $VARIANTS; do t=${v//[@=,]/_}
  timeout -k 5 60 $(cmd $v) synth --only layers --rows 1 4 --repeats 10 > $R/layers-$t-$rep.txt 2>&1
  echo "$v rep $rep: $(grep -E '^43-layer round +1 slot, as drawn' $R/layers-$t-$rep.txt | awk '{printf "%s ", $(NF-3)}')| 4 slots $(grep -E '^43-layer round +4 slots, as drawn' $R/layers-$t-$rep.txt | awk '{print $(NF-3)}')"
done; done | tee $R/rounds.txt
# main's kernel classes, for issue 12's targets (experts, FP8 rows)
timeout -k 5 150 $B/plumb synth --only kernels > $R/kernels-plumb.txt 2>&1
grep -E "^fp8 rows +(wq_b|wo_b)|^experts" $R/kernels-plumb.txt
tar -czf $OUT/call5-extra.tgz -C $R .; cp $R/rounds.txt $R/ncu-summary.txt $OUT/
echo "t=$SECONDS"
