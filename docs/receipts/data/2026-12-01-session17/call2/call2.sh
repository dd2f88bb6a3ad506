#!/usr/bin/env bash
# Session 17 call 2 (carry [".device"], timeout_s 480): next-pv-tiles at 4590adc against main (fef5641, whose kernels
# are f68ba9e's). The tiled P.V in one-wave launches: eight 32-key stages (PLUMB_PV_TILES_DEEP=0: four), 1024-entry
# chunks, the chunk's loads before its stores, the sinks before the wait; PLUMB_PV_TILES=0 is the register batches.
# Bits at chunk 1 and 16 (expect cf824e82009a0f99), the contract, the CUDA tests, the round at 1, 4 and 16 rows and
# 4 slots alternating twice, ncu of the P.V at one row, the tiled P.V's SASS, and the kernel timer on a CSA layer.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
T=plumb-next-pv-tiles
VARIANTS="plumb $T $T@PLUMB_PV_TILES_DEEP=0 $T@PLUMB_PV_TILES=0"
CONTRACTS="$T" LIGHT=1 KERNELS=0 AB="$VARIANTS" bash tools/device/ab-builds.sh
echo "t=$SECONDS"
R=$(mktemp -d); I=$(cat .device/ids.txt)
{ for c in 1 16; do for k in 1 2; do
    timeout -k 5 60 $B/$T logits --backend cuda --ids "$I" --chunk $c --out $R/l.bin --mtp-out $R/l.mtp >/dev/null 2>&1
    echo "$T chunk $c repeat $k: $(cat $R/l.bin $R/l.mtp | sha256sum | cut -c1-16)"
  done; done
  echo "next-pv-tiles CUDA tests: $(timeout -k 5 150 $B/test_dsv4_forward-next-pv-tiles --gtest_filter='*cuda*:Cuda*' 2>&1 | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')"
} | tee $R/tests.txt
echo "t=$SECONDS"
cmd() { local e=""; [[ $1 == *@* ]] && e=${1#*@}; echo "env ${e//,/ } $B/${1%%@*}"; }
for rep in 1 2; do for v in $VARIANTS; do t=${v//[@=,]/_}
  timeout -k 5 60 $(cmd $v) synth --only layers --rows 1 4 16 --repeats 10 > $R/layers-$t-$rep.txt 2>&1
  echo "$v rep $rep: $(grep -E '^43-layer round +1 slot, as drawn' $R/layers-$t-$rep.txt | awk '{printf "%s ", $(NF-3)}')| 4 slots $(grep -E '^43-layer round +4 slots, as drawn' $R/layers-$t-$rep.txt | awk '{print $(NF-3)}')"
done; echo "t=$SECONDS"; done | tee $R/rounds.txt
NCU="/usr/local/cuda/bin/ncu --clock-control none --metrics gpu__time_duration.sum"
for run in "$T 1" "$T@PLUMB_PV_TILES_DEEP=0 1" "$T@PLUMB_PV_TILES=0 1" "$T 2" "$T@PLUMB_PV_TILES=0 2"; do
  read -r v rows <<< "$run"; t=${v//[@=,]/_}; e=""; [[ $v == *@* ]] && e=${v#*@}
  env $e PLUMB_CUDA_GRAPHS=0 timeout -k 5 60 $NCU --kernel-name regex:attention_pv --launch-count 6 \
    $B/${v%%@*} synth --only layers --rows $rows --repeats 1 --config .device/csa-config.json > $R/ncu-$t-$rows.txt 2>&1
  echo "-- $v, $rows rows"; grep -E "^  [^ ]|gpu__time_duration" $R/ncu-$t-$rows.txt | sed -E 's/\(anonymous namespace\):://g; s/plumb::cuda::(ops::)?//g; s/\(.*\) \(/ (/; s/, Context.*//; s/ +/ /g' | paste - - | cut -c1-140
done | tee $R/ncu-summary.txt
echo "t=$SECONDS"
# the tiled P.V at one row: its stalls and SASS with samples (session 16's register batches: pv-sass.csv.gz)
PLUMB_CUDA_GRAPHS=0 timeout -k 5 90 /usr/local/cuda/bin/ncu --clock-control none --kernel-name regex:attention_pv --launch-skip 2 --launch-count 1 \
  --section WarpStateStats --section SchedulerStats --section Occupancy --section SourceCounters --metrics smsp__inst_executed.sum,gpu__time_duration.sum \
  $B/$T synth --only layers --rows 1 --repeats 1 --config .device/csa-config.json > $R/pv-tiles-details.txt 2>&1
PLUMB_CUDA_GRAPHS=0 timeout -k 5 90 /usr/local/cuda/bin/ncu --clock-control none --kernel-name regex:attention_pv --launch-skip 2 --launch-count 1 \
  --section SourceCounters --page source --csv --print-source sass \
  $B/$T synth --only layers --rows 1 --repeats 1 --config .device/csa-config.json 2>/dev/null | gzip > $R/pv-tiles-sass.csv.gz
grep -E "Duration|inst_executed|Registers|Warp Cycles Per Issued|Issued Warp|Achieved Occ|gpu__time" $R/pv-tiles-details.txt | head -12
echo "t=$SECONDS"
# one CSA layer at one row, kernel by kernel (the timer's event nodes add a gap a kernel; graphs hide it)
PLUMB_CUDA_KERNEL_TIMES=1 timeout -k 5 60 $B/$T synth --only layers --rows 1 --repeats 4 --config .device/csa-config.json > $R/kt-csa.txt 2>&1
sed -n '/kernel (device time)/,$p' $R/kt-csa.txt | head -45
rm -f $R/l.bin $R/l.mtp; tar -czf $OUT/call2-extra.tgz -C $R .; cp $R/tests.txt $R/rounds.txt $R/ncu-summary.txt $R/pv-tiles-sass.csv.gz $OUT/
echo "t=$SECONDS"
