#!/usr/bin/env bash
# session 7, call 3: lean experts and FP8 passes (same bits) against main cb17387; CUDA tests of next-lean; ncu of
# the experts passes at one row, main and next-lean
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
timeout -k 5 100 $B/test_dsv4_forward --gtest_filter='*cuda*:Cuda*' > $OUT/tests-next-lean.txt 2>&1; tail -2 $OUT/tests-next-lean.txt
grep -h "damped tiny model, cuda" $OUT/tests-next-lean.txt
for v in plumb plumb-next-lean; do
  PLUMB_CUDA_GRAPHS=0 timeout -k 5 60 /usr/local/cuda/bin/ncu --clock-control none --kernel-name-base function \
    --kernel-name regex:experts_pass --launch-count 2 --section SpeedOfLight --section SchedulerStats \
    --section WarpStateStats --metrics smsp__inst_executed.sum,gpu__time_duration.sum \
    $B/$v synth --only layers --rows 1 --repeats 1 > $OUT/ncu-experts-$v.txt 2>&1
  grep -E "experts_pass_kernel|Duration|Issued Warp|inst_executed|gpu__time" $OUT/ncu-experts-$v.txt | head -12
done
echo "t=$SECONDS"
AB="plumb plumb-next-experts-lean plumb-next-fp8-lean plumb-next-lean" timeout -k 5 440 bash tools/device/ab-builds.sh
echo "t=$SECONDS"
