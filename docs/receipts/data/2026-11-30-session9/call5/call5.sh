#!/usr/bin/env bash
# Session 9 call 5: attention_pv tuned (unconditional key loads, 64 a thread in flight, logits with the block maxima,
# alphas together) at 64, 32 and 128 channels a block, against main (347db82: call 4's two-launch attention).
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; B=.device/bin; SECONDS=0
echo "== ncu: attention kernels at one CSA row (a CSA-only config)"
for v in plumb plumb-next-attention-pv-tune plumb-next-attention-pv-tune32 plumb-next-attention-pv-tune128; do
  PLUMB_CUDA_GRAPHS=0 timeout -k 5 90 /usr/local/cuda/bin/ncu --clock-control none --kernel-name regex:'attention' --launch-count 6 \
    --metrics gpu__time_duration.sum,smsp__issue_active.avg.per_cycle_active \
    $B/$v synth --only layers --rows 1 --repeats 1 --config .device/csa-config.json > $OUT/ncu-attention-$v.txt 2>&1
  echo "-- $v"; grep -E "Context|duration|issue_active" $OUT/ncu-attention-$v.txt | sed -E 's/^ *(void )?([^ ]*::)?([a-z_]+)[<(].* \(([0-9, ]+)\)x\(([0-9, ]+)\), Context.*/\3 (\4)x(\5)/' | awk '{$1=$1; print}' | paste -d'|' - - - | head -6
done
echo "t=$SECONDS"
LIGHT=1 AB="plumb plumb-next-attention-pv-tune plumb-next-attention-pv-tune32" timeout -k 5 420 bash tools/device/ab-builds.sh
for v in plumb plumb-next-attention-pv-tune plumb-next-attention-pv-tune32; do echo "-- $v"; tar xzf $OUT/ab-builds.tgz -O ./layers-$v-1.txt | sed -n '/dispatch class/,/^$/p' | grep -E "1 slot, as drawn   1 |4 slots, as drawn|1 slot, as drawn   16" ; done
echo "t=$SECONDS"
