#!/usr/bin/env bash
# session 7, call 1: main (de57024) on the GPU - CUDA tests, contract - then three branches against it
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader | tee $OUT/gpu.txt
timeout -k 5 120 .device/bin/test_dsv4_forward --gtest_filter='*cuda*:Cuda*' > $OUT/tests-main.txt 2>&1; tail -2 $OUT/tests-main.txt
grep -h "damped tiny model, cuda" $OUT/tests-main.txt
timeout -k 5 90 .device/bin/plumb contract --backend cuda 2>&1 | tail -1 | tee $OUT/contract-main.txt
echo "t=$SECONDS"
AB="plumb plumb-next-no-prefetch plumb-next-hc-mix-typed plumb-next-fp8-staged" timeout -k 5 440 bash tools/device/ab-builds.sh
echo "t=$SECONDS"
