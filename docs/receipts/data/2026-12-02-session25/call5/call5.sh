#!/usr/bin/env bash
# Session 25, call 5 (carry [".device"], timeout_s 300): which resource binds the experts' one-row passes. Call 4
# found that twice the warps in flight (two K splits in the down pass, 29% achieved occupancy against 17%) left the
# down pass at 16.5 us, DRAM at 34% and each warp slower per instruction (9.2 cycles against 6.3): a shared pipe,
# not latency. Main 9b8110f's binary; ncu of the first two experts_pass launches in a window layer at one row:
# ComputeWorkloadAnalysis and InstructionStats, each pipe's utilization and instruction count, and the stall
# reasons per issued instruction.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
R=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
PLUMB_CUDA_GRAPHS=0 timeout -k 5 150 $NCU --clock-control none --kernel-name regex:experts_pass --launch-count 2 \
  --section ComputeWorkloadAnalysis --section InstructionStats --section SpeedOfLight \
  --metrics 'regex:sm__pipe_.*_cycles_active\.avg\.pct_of_peak_sustained_active$','regex:sm__inst_executed_pipe_.*\.avg\.pct_of_peak_sustained_active$','regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio$' \
  $B/plumb synth --only layers --rows 1 --repeats 1 --config .device/window-config.json > $R/ncu-pipes.txt 2>&1
grep -E "experts_pass_kernel|pct_of_peak|stalled_|Duration|Issue Slots|Executed Ipc|SM Busy|highest|pipeline|utiliz" $R/ncu-pipes.txt \
  | sed -E 's/\(anonymous namespace\):://g; s/unnamed>:://g; s/\(PassArgs\)//; s/, Context.*//; s/ +/ /g' \
  | awk '!/ 0(\.0+)?$/ || /experts_pass/' | tee $R/pipes-summary.txt $OUT/pipes-summary.txt
cp $R/ncu-pipes.txt $OUT/
echo "t=$SECONDS"
