#!/usr/bin/env bash
# Session 25, call 6 (carry [".device"], timeout_s 420): for every kernel of one layer of each kind at one row (main
# 9b8110f's binary, graphs off, each kernel alone under ncu): its time, DRAM throughput, the busiest pipes, issue
# slots, achieved occupancy and the main stall reasons, so the next change can aim at what binds each kernel (call 5
# did this for the experts' passes alone). Read with tools/device/ncu_layer_table.py --metrics.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
R=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
SAFE=gpu__time_duration.sum,sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio
MORE=dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio
for kind in window csa hca; do
  for m in "$SAFE,$MORE" "$SAFE"; do
    PLUMB_CUDA_GRAPHS=0 timeout -k 5 110 $NCU --clock-control none --launch-count 130 --csv --metrics "$m" \
      $B/plumb synth --only layers --rows 1 --repeats 1 --config .device/$kind-config.json 2> $R/ncu-$kind.err | gzip > $R/ncu-$kind.csv.gz
    zcat $R/ncu-$kind.csv.gz | grep -q gpu__time_duration && break
    echo "$kind: the full metric list failed, retrying with the safe list"; tail -3 $R/ncu-$kind.err
  done
  echo "t=$SECONDS $kind: $(zcat $R/ncu-$kind.csv.gz | grep -c gpu__time_duration) launches"
done
cp $R/ncu-*.csv.gz $OUT/
tar -czf $OUT/call.tgz -C $R .
echo "t=$SECONDS"
