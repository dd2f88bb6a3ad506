#!/usr/bin/env bash
# Session 16 call 4 (carry [".device"], timeout_s 400): main (e1f5b3b: the fused rope ops merged) against itself with
# PLUMB_FUSED_ROPE=0 (the two ops each, the kernels main ran before), one binary, so the A/B has no build
# difference. The round at 1, 2, 4 and 16 rows and 4 slots, the two alternating four times; the layers at 64 and 256
# rows twice; ncu of the P.V and the q norm at 1 row with the switch on and off (the P.V's isolated time grew 26 ->
# 30-31 us in calls 2-3; its angles are taken before the PDL wait, which ncu's serial launches do not overlap).
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
echo "plumb: $($B/plumb version)"
R=$(mktemp -d)
VARIANTS="plumb plumb@PLUMB_FUSED_ROPE=0"
cmd() { local e=""; [[ $1 == *@* ]] && e=${1#*@}; echo "env ${e//,/ } $B/${1%%@*}"; }
for rep in 1 2 3 4; do for v in $VARIANTS; do t=${v//[@=,]/_}
  timeout -k 5 60 $(cmd $v) synth --only layers --rows 1 2 4 16 --repeats 10 > $R/layers-$t-$rep.txt 2>&1
  echo "$v rep $rep: $(grep -E '^43-layer round +1 slot, as drawn' $R/layers-$t-$rep.txt | awk '{printf "%s ", $(NF-3)}')| 4 slots $(grep -E '^43-layer round +4 slots, as drawn' $R/layers-$t-$rep.txt | awk '{print $(NF-3)}')"
done; done | tee $R/rounds.txt
echo "t=$SECONDS"
for rep in 1 2; do for v in $VARIANTS; do t=${v//[@=,]/_}
  timeout -k 5 100 $(cmd $v) synth --only layers --rows 64 256 --repeats 5 > $R/prefill-$t-$rep.txt 2>&1
  echo "$v rep $rep: $(grep -E '^43-layer round +1 slot, as drawn' $R/prefill-$t-$rep.txt | awk '{printf "%s ", $(NF-3)}')"
done; done | tee $R/prefill.txt
echo "t=$SECONDS"
NCU="/usr/local/cuda/bin/ncu --clock-control none --metrics gpu__time_duration.sum"
for v in $VARIANTS; do t=${v//[@=,]/_}; e=""; [[ $v == *@* ]] && e=${v#*@}
  env $e PLUMB_CUDA_GRAPHS=0 timeout -k 5 90 $NCU --kernel-name regex:'head_rms_norm|rope_kernel|attention_pv' --launch-count 12 \
    $B/plumb synth --only layers --rows 1 --repeats 1 --config .device/csa-config.json > $R/ncu-$t-1.txt 2>&1
  echo "-- $v, 1 row"; grep -E "^  [^ ]|gpu__time_duration" $R/ncu-$t-1.txt | sed -E 's/\(anonymous namespace\):://g; s/plumb::cuda::(ops::)?//g; s/\(.*\) \(/ (/; s/, Context.*//; s/ +/ /g' | paste - - | cut -c1-140
done | tee $R/ncu-summary.txt
tar -czf $OUT/call4-extra.tgz -C $R .; cp $R/rounds.txt $R/prefill.txt $R/ncu-summary.txt $OUT/
echo "t=$SECONDS"
