#!/usr/bin/env bash
# Session 9 call 3: where the two-launch attention's time goes (call 2: attention_pv 84 us and attention_logits
# 24.5 us at one CSA row, against 75 us for the old kernel). ncu full sets with per-SASS-line stall samples.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; B=.device/bin; SECONDS=0; N=/usr/local/cuda/bin/ncu
for k in attention_pv attention_logits; do
  PLUMB_CUDA_GRAPHS=0 timeout -k 5 120 $N --clock-control none --set full --import-source no -k regex:$k --launch-skip 2 --launch-count 1 \
    -o $OUT/$k -f $B/plumb-next-attention-split synth --only layers --rows 1 --repeats 1 --config .device/csa-config.json > $OUT/ncu-$k.log 2>&1
  $N -i $OUT/$k.ncu-rep --page details --section WarpStateStats --section LaunchStats --section Occupancy --section SchedulerStats --section MemoryWorkloadAnalysis > $OUT/details-$k.txt 2>&1
  $N -i $OUT/$k.ncu-rep --page source --print-source sass --csv > $OUT/sass-$k.csv 2>&1
  echo "== $k"; grep -E "Duration|Stall|Warp Cycles|Achieved Occupancy|Registers|Issued Warp|No Eligible|Active Warps" $OUT/details-$k.txt | head -30
  wc -c $OUT/sass-$k.csv; head -3 $OUT/sass-$k.csv | cut -c1-600
  rm -f $OUT/$k.ncu-rep
done
echo "t=$SECONDS"
