#!/usr/bin/env bash
# Session 9 call 2: sparse attention in two launches (next-attention-split, and pv32 with 32 channels a P.V block)
# against main (2e3ecc4). Same bits expected: ab-builds checks logits and MTP logits against main's and runs the
# contracts; the branch's CUDA tests; then ncu durations of the new kernels; then the timings.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; B=.device/bin; SECONDS=0
echo "== CUDA tests of next-attention-split"
timeout -k 5 240 $B/test_dsv4_forward-next-attention-split --gtest_filter='*cuda*:Cuda*' > $OUT/cuda-tests.txt 2>&1
grep -E "^\[  (PASSED|FAILED)|FAILED|tests ran" $OUT/cuda-tests.txt | head -20
echo "t=$SECONDS"
echo "== ncu: the attention kernels at one row (a CSA-only config; with the indexer and compressor kernels)"
for v in plumb plumb-next-attention-split; do
  PLUMB_CUDA_GRAPHS=0 timeout -k 5 90 /usr/local/cuda/bin/ncu --clock-control none --kernel-name regex:'attention|indexer|compress' --launch-count 40 \
    --metrics gpu__time_duration.sum,smsp__issue_active.avg.per_cycle_active,lts__t_bytes.sum,dram__bytes_read.sum \
    $B/$v synth --only layers --rows 1 --repeats 1 --config .device/csa-config.json > $OUT/ncu-attention-$v.txt 2>&1
  echo "-- $v"; grep -E "Context|duration|issue_active|lts__t_bytes|dram__bytes" $OUT/ncu-attention-$v.txt | sed -E 's/^ *(void )?([^ ]*::)?([a-z_]+)[<(].* \(([0-9, ]+)\)x\(([0-9, ]+)\), Context.*/\3 (\4)x(\5)/' | awk '{$1=$1; print}' | paste -d'|' - - - - - | head -40
done
echo "t=$SECONDS"
LIGHT=1 AB="plumb plumb-next-attention-split plumb-next-attention-pv32" timeout -k 5 420 bash tools/device/ab-builds.sh
for v in plumb plumb-next-attention-split plumb-next-attention-pv32; do echo "-- $v"; tar xzf $OUT/ab-builds.tgz -O ./layers-$v-1.txt | sed -n '/dispatch class/,/^$/p' | grep -E "1 slot, as drawn   1 |4 slots, as drawn|1 slot, as drawn   16" ; done
echo "t=$SECONDS"
