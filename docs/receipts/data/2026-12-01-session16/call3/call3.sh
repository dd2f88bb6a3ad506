#!/usr/bin/env bash
# Session 16 call 3 (carry [".device"], timeout_s 500): main (e1f5b3b, with the fused rope ops) against
# next-pv-prefetch (209fc87), built here with `scripts/device-bundle-ab next-pv-prefetch -- test_dsv4_forward`, not
# yet run on a GPU. Same bits by design: the one-wave P.V (launches of one or two rows) loads the next 64 keys while
# it sums these, and a chunk's first batch before the chunk's softmax (PLUMB_PV_PREFETCH=0 runs the old loop). Bits
# at chunk 1 and 16 for every variant and three more times for the branch, the branch's contract and CUDA tests, the
# round at 1, 2, 4 and 16 rows and 4 slots with the builds alternating twice, ncu of the P.V at 1 and 2 rows (CSA/4
# layer) for the three variants, and the prefetching kernel's stall samples.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
S=plumb-next-pv-prefetch
VARIANTS="plumb $S $S@PLUMB_PV_PREFETCH=0"
CONTRACTS="$S" LIGHT=1 AB="$VARIANTS" bash tools/device/ab-builds.sh
R=$(mktemp -d); I=$(cat .device/ids.txt)
{ for c in 1 16; do for k in 1 2 3; do
    timeout -k 5 60 $B/$S logits --backend cuda --ids "$I" --chunk $c --out $R/l.bin --mtp-out $R/l.mtp >/dev/null 2>&1
    echo "$S chunk $c repeat $k: $(cat $R/l.bin $R/l.mtp | sha256sum | cut -c1-16)"
  done; done
  echo "next-pv-prefetch CUDA tests: $(timeout -k 5 150 $B/test_dsv4_forward-next-pv-prefetch --gtest_filter='*cuda*:Cuda*' 2>&1 | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')"
} | tee $R/tests.txt
echo "t=$SECONDS"
cmd() { local e=""; [[ $1 == *@* ]] && e=${1#*@}; echo "env ${e//,/ } $B/${1%%@*}"; }
for rep in 1 2; do for v in $VARIANTS; do t=${v//[@=,]/_}
  timeout -k 5 60 $(cmd $v) synth --only layers --rows 1 2 4 16 --repeats 10 > $R/layers-$t-$rep.txt 2>&1
  echo "$v rep $rep: $(grep -E '^43-layer round +1 slot, as drawn' $R/layers-$t-$rep.txt | awk '{printf "%s ", $(NF-3)}')| 4 slots $(grep -E '^43-layer round +4 slots, as drawn' $R/layers-$t-$rep.txt | awk '{print $(NF-3)}')"
done; done | tee $R/rounds.txt
echo "t=$SECONDS"
NCU="/usr/local/cuda/bin/ncu --clock-control none --metrics gpu__time_duration.sum"
for run in "plumb 1" "$S 1" "$S@PLUMB_PV_PREFETCH=0 1" "plumb 2" "$S 2"; do
  v=${run% *}; rows=${run#* }; t=${v//[@=,]/_}; e=""; [[ $v == *@* ]] && e=${v#*@}
  env $e PLUMB_CUDA_GRAPHS=0 timeout -k 5 90 $NCU --kernel-name regex:'attention_pv' --launch-count 4 \
    $B/${v%%@*} synth --only layers --rows $rows --repeats 1 --config .device/csa-config.json > $R/ncu-$t-$rows.txt 2>&1
  echo "-- $v, $rows rows"; grep -E "^  [^ ]|gpu__time_duration" $R/ncu-$t-$rows.txt | sed -E 's/\(anonymous namespace\):://g; s/plumb::cuda::(ops::)?//g; s/\(.*\) \(/ (/; s/, Context.*//; s/ +/ /g' | paste - - | cut -c1-140
done | tee $R/ncu-summary.txt
echo "t=$SECONDS"
PLUMB_CUDA_GRAPHS=0 timeout -k 5 150 /usr/local/cuda/bin/ncu --clock-control none --set full --import-source no --kernel-name regex:'attention_pv' \
  --launch-count 1 -o $R/pv $B/$S synth --only layers --rows 1 --repeats 1 --config .device/csa-config.json > $R/pv.log 2>&1 || tail -3 $R/pv.log
/usr/local/cuda/bin/ncu -i $R/pv.ncu-rep --page details > $R/pv-details.txt 2>&1
/usr/local/cuda/bin/ncu -i $R/pv.ncu-rep --page source --print-source sass --csv 2>/dev/null | gzip > $OUT/pv-prefetch-sass.csv.gz
grep -E "Duration|Registers Per|Achieved Occupancy|Warp Cycles Per Issued|Issue Slots Busy" $R/pv-details.txt | head -10 | tee $OUT/pv-prefetch-summary.txt
rm -f $R/pv.ncu-rep; tar -czf $OUT/call3-extra.tgz -C $R .; cp $R/tests.txt $R/rounds.txt $R/ncu-summary.txt $OUT/
echo "t=$SECONDS"
