#!/usr/bin/env bash
# Session 9 call 7: the indexer's selection by counting (next-indexer-rank) against main (47adf11).
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; B=.device/bin; SECONDS=0
timeout -k 5 200 $B/test_dsv4_forward-next-indexer-rank --gtest_filter='*cuda*:Cuda*' > $OUT/cuda-tests.txt 2>&1
grep -E "^\[  (PASSED|FAILED)" $OUT/cuda-tests.txt | head
echo "== ncu: indexer kernels, a CSA-only config"
for v in plumb plumb-next-indexer-rank; do
  PLUMB_CUDA_GRAPHS=0 timeout -k 5 60 /usr/local/cuda/bin/ncu --clock-control none --kernel-name regex:'indexer' --launch-count 30 \
    --metrics gpu__time_duration.sum $B/$v synth --only layers --rows 1 --repeats 1 --config .device/csa-config.json > $OUT/ncu-indexer-$v.txt 2>&1
  echo "-- $v"; grep -E "Context|duration" $OUT/ncu-indexer-$v.txt | sed -E 's/^ *(void )?([^ ]*::)?([a-z_]+)[<(].* \(([0-9, ]+)\)x\(([0-9, ]+)\), Context.*/\3 (\4)x(\5)/' | awk '{$1=$1; print}' | paste -d'|' - - | awk -F'|' '{k=$1; if (n[k]++ < 2) print}' | head -8
done
echo "t=$SECONDS"
LIGHT=1 AB="plumb plumb-next-indexer-rank" timeout -k 5 250 bash tools/device/ab-builds.sh
echo "t=$SECONDS"
