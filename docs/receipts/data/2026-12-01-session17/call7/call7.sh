#!/usr/bin/env bash
# Session 17 call 7 (carry [".device"], timeout_s 300): the round at one row with next-experts-add's fused add on
# and off (PLUMB_FUSED_MOE_ADD=0) and main, alternating eight times (call 6's three alternations were within this
# machine's noise), and ncu of the first 40 combine and add launches (the op timer's traced calls run the default
# decomposition: combine, then add).
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
E=plumb-next-experts-add
VARIANTS="plumb $E $E@PLUMB_FUSED_MOE_ADD=0"
R=$(mktemp -d)
cmd() { local e=""; [[ $1 == *@* ]] && e=${1#*@}; echo "env ${e//,/ } $B/${1%%@*}"; }
for rep in 1 2 3 4 5 6 7 8; do for v in $VARIANTS; do t=${v//[@=,]/_}
  timeout -k 5 60 $(cmd $v) synth --only layers --rows 1 4 --repeats 10 > $R/layers-$t-$rep.txt 2>&1
  echo "$v rep $rep: $(grep -E '^43-layer round +1 slot, as drawn' $R/layers-$t-$rep.txt | awk '{printf "%s ", $(NF-3)}')| 4 slots $(grep -E '^43-layer round +4 slots, as drawn' $R/layers-$t-$rep.txt | awk '{print $(NF-3)}')"
done; done | tee $R/rounds.txt
echo "t=$SECONDS"
NCU="/usr/local/cuda/bin/ncu --clock-control none --metrics gpu__time_duration.sum"
for v in $E $E@PLUMB_FUSED_MOE_ADD=0; do t=${v//[@=,]/_}; e=""; [[ $v == *@* ]] && e=${v#*@}
  env $e PLUMB_CUDA_GRAPHS=0 timeout -k 5 90 $NCU --kernel-name regex:'combine|add_kernel' --launch-count 40 \
    $B/${v%%@*} synth --only layers --rows 1 --repeats 2 --config .device/csa-config.json > $R/ncu-$t.txt 2>&1
  echo "-- $v"; grep -E "^  [^ ]|gpu__time_duration" $R/ncu-$t.txt | sed -E "s/.*(combine_kernel|add_kernel).*/\1/; s/ *gpu__time_duration.sum +us +/ /" | paste -s -d" " | fold -w 150
done | tee $R/ncu-summary.txt
tar -czf $OUT/call7-extra.tgz -C $R .; cp $R/rounds.txt $R/ncu-summary.txt $OUT/
echo "t=$SECONDS"
