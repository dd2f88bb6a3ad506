#!/usr/bin/env bash
# Session 17 call 1 (carry [".device"], timeout_s 590): two experiments against main f68ba9e in one bundle.
#  T = next-pv-tiles (ad7a9ab): the P.V's keys through shared-memory tiles (cp.async, three 32-key stages);
#      PLUMB_PV_TILES=0 is the register batches, PLUMB_PV_TILES_WIDE=0 tiles in one-wave launches only.
#  H = next-hc-post-pre-r: session 16's hc_post_pre with the fused kernel's loads first (prepared, never run);
#      PLUMB_FUSED_HC=0 is the two kernels.
# Bits at chunk 1 and 16 (expect cf824e82009a0f99), both contracts, both branches' CUDA tests, the round at 1, 4 and
# 16 rows and 4 slots (variants alternating twice), ncu of the P.V and the mHC kernels.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
T=plumb-next-pv-tiles; H=plumb-next-hc-post-pre-r
VARIANTS="plumb $T $T@PLUMB_PV_TILES=0 $T@PLUMB_PV_TILES_WIDE=0 $H $H@PLUMB_FUSED_HC=0"
CONTRACTS="$T $H" LIGHT=1 KERNELS=0 AB="$VARIANTS" bash tools/device/ab-builds.sh
echo "t=$SECONDS"
R=$(mktemp -d); I=$(cat .device/ids.txt)
{ for v in $T $H; do for c in 1 16; do for k in 1 2; do
    timeout -k 5 60 $B/$v logits --backend cuda --ids "$I" --chunk $c --out $R/l.bin --mtp-out $R/l.mtp >/dev/null 2>&1
    echo "$v chunk $c repeat $k: $(cat $R/l.bin $R/l.mtp | sha256sum | cut -c1-16)"
  done; done; done
  for b in next-pv-tiles next-hc-post-pre-r; do
    echo "$b CUDA tests: $(timeout -k 5 150 $B/test_dsv4_forward-$b --gtest_filter='*cuda*:Cuda*' 2>&1 | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')"
  done
} | tee $R/tests.txt
echo "t=$SECONDS"
cmd() { local e=""; [[ $1 == *@* ]] && e=${1#*@}; echo "env ${e//,/ } $B/${1%%@*}"; }
for rep in 1 2; do for v in $VARIANTS; do t=${v//[@=,]/_}
  timeout -k 5 60 $(cmd $v) synth --only layers --rows 1 4 16 --repeats 10 > $R/layers-$t-$rep.txt 2>&1
  echo "$v rep $rep: $(grep -E '^43-layer round +1 slot, as drawn' $R/layers-$t-$rep.txt | awk '{printf "%s ", $(NF-3)}')| 4 slots $(grep -E '^43-layer round +4 slots, as drawn' $R/layers-$t-$rep.txt | awk '{print $(NF-3)}')"
done; echo "t=$SECONDS"; done | tee $R/rounds.txt
NCU="/usr/local/cuda/bin/ncu --clock-control none --metrics gpu__time_duration.sum"
for run in "$T 1 attention_pv" "$T@PLUMB_PV_TILES=0 1 attention_pv" "$T 16 attention_pv" "$T@PLUMB_PV_TILES=0 16 attention_pv" \
           "$H 1 hc_post|hc_mix|hc_pre" "$H@PLUMB_FUSED_HC=0 1 hc_post|hc_mix|hc_pre"; do
  read -r v rows k <<< "$run"; t=${v//[@=,]/_}; e=""; [[ $v == *@* ]] && e=${v#*@}
  env $e PLUMB_CUDA_GRAPHS=0 timeout -k 5 60 $NCU --kernel-name regex:"$k" --launch-count 6 \
    $B/${v%%@*} synth --only layers --rows $rows --repeats 1 --config .device/csa-config.json > $R/ncu-$t-$rows.txt 2>&1
  echo "-- $v, $rows rows"; grep -E "^  [^ ]|gpu__time_duration" $R/ncu-$t-$rows.txt | sed -E 's/\(anonymous namespace\):://g; s/plumb::cuda::(ops::)?//g; s/\(.*\) \(/ (/; s/, Context.*//; s/ +/ /g' | paste - - | cut -c1-140
done | tee $R/ncu-summary.txt
echo "t=$SECONDS"
# the tiled P.V at one row: where its warps stall and its instructions (the register batches had 8.5 a key)
PLUMB_CUDA_GRAPHS=0 timeout -k 5 60 /usr/local/cuda/bin/ncu --clock-control none --kernel-name regex:attention_pv --launch-skip 2 --launch-count 1 \
  --section WarpStateStats --section SchedulerStats --section LaunchStats --section Occupancy --metrics smsp__inst_executed.sum,gpu__time_duration.sum \
  $B/$T synth --only layers --rows 1 --repeats 1 --config .device/csa-config.json > $R/pv-tiles-details.txt 2>&1
grep -E "Duration|inst_executed|Registers|Stall|Warp Cycles|Issued|Achieved Occ|Dynamic Shared|gpu__time" $R/pv-tiles-details.txt | head -30
rm -f $R/l.bin $R/l.mtp; tar -czf $OUT/call1-extra.tgz -C $R .; cp $R/tests.txt $R/rounds.txt $R/ncu-summary.txt $OUT/
echo "t=$SECONDS"
