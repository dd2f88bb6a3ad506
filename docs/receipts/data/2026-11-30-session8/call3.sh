#!/usr/bin/env bash
# Session 8 call 3: main (e7b9d12) against next-candidate2 (call 2's candidate) and next-candidate3 (the same with
# the FP8 linear's quantization loads batched 8 a warp). Same bits expected; candidate3's CUDA tests; full
# ab-builds (kernel timer and two rounds of layers) for the merge decision.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
timeout -k 5 150 $B/test_dsv4_forward-next-candidate3 --gtest_filter='*cuda*:Cuda*' > $OUT/tests-candidate3.txt 2>&1
tail -3 $OUT/tests-candidate3.txt; grep -h "tiny model, cuda vs cpu" $OUT/tests-candidate3.txt
echo "t=$SECONDS"
AB="plumb plumb-next-candidate2 plumb-next-candidate3" timeout -k 5 480 bash tools/device/ab-builds.sh
echo "t=$SECONDS"
