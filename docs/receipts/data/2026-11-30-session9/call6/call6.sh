#!/usr/bin/env bash
# Session 9 call 6: attention_pv at 128 channels a block with 64-key batches for one-wave launches and 32-key
# batches otherwise (next-attention-pv-final), against main (bc0e503: call 4's two-launch attention).
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; B=.device/bin; SECONDS=0
timeout -k 5 240 $B/test_dsv4_forward-next-attention-pv-final --gtest_filter='*cuda*:Cuda*' > $OUT/cuda-tests.txt 2>&1
grep -E "^\[  (PASSED|FAILED)" $OUT/cuda-tests.txt | head
echo "== ncu: attention kernels, a CSA-only config, 1 row then 4 slots"
for v in plumb plumb-next-attention-pv-final; do
  PLUMB_CUDA_GRAPHS=0 timeout -k 5 90 /usr/local/cuda/bin/ncu --clock-control none --kernel-name regex:'attention' --launch-count 40 \
    --metrics gpu__time_duration.sum $B/$v synth --only layers --rows 1 --repeats 1 --config .device/csa-config.json > $OUT/ncu-attention-$v.txt 2>&1
  echo "-- $v"; grep -E "Context|duration" $OUT/ncu-attention-$v.txt | sed -E 's/^ *(void )?([^ ]*::)?([a-z_]+)[<(].* \(([0-9, ]+)\)x\(([0-9, ]+)\), Context.*/\3 (\4)x(\5)/' | awk '{$1=$1; print}' | paste -d'|' - - | awk -F'|' '{k=$1; if (n[k]++ < 2) print}' | head -12
done
echo "t=$SECONDS"
LIGHT=1 AB="plumb plumb-next-attention-pv-final" timeout -k 5 300 bash tools/device/ab-builds.sh
for v in plumb plumb-next-attention-pv-final; do echo "-- $v"; tar xzf $OUT/ab-builds.tgz -O ./layers-$v-1.txt | sed -n '/dispatch class/,/^$/p' | grep -E "1 slot, as drawn   1 |4 slots, as drawn|1 slot, as drawn   16" ; done
echo "t=$SECONDS"
