#!/usr/bin/env bash
# Session 33 call 1 (carry [".device"], timeout_s 420): branch next-fp8-ring's plumb alone (scripts/device-bundle from
# the branch). `synth --only kernels` three times: the ring classes (wq_b and wo_b tiled, 4 and 6 steps a warp; synth
# itself fails if any of their outputs at 1-8 rows differs from main's kernel byte for byte), main's two-launch kernel
# on the same weights, a bare read of the same bytes, and main's FP8 classes. Then ncu of one launch each at one row
# (wq_b: main's two-launch kernel, the ring at 4 steps; wo_b the same).
set -uo pipefail
source tools/device/call_start.sh
E=plumb
for i in 1 2 3; do
  timeout -k 5 150 $B/$E synth --only kernels --rows 1,2,4,8,16 > $R/kernels-$i.txt 2>&1; echo "rc=$? t=$SECONDS"
  grep -E "copy|^fp8|^read|^dense" $R/kernels-$i.txt | tee -a $OUT/classes.txt
done
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_read.sum.per_second,smsp__inst_executed.sum,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__occupancy_limit_shared_mem
for k in fp8_linear_kernel fp8_linear_ring; do
  timeout -k 5 90 "$ncu" --clock-control none --cache-control all --kernel-name regex:"$k" --launch-count 12 --metrics $M \
    $B/$E synth --only kernels --rows 1 --repeats 1 > $R/ncu-$k.txt 2>&1
  echo "== $k"; grep -E "^  [^ ]|gpu__|dram__|smsp__|launch__" $R/ncu-$k.txt | sed -E 's/\(anonymous namespace\):://g; s/plumb::cuda::(fp8_detail::)?//g; s/, Context.*//; s/ +/ /g'
done | tee $OUT/ncu-summary.txt
tar -czf $OUT/call.tgz -C $R .
echo "t=$SECONDS"
