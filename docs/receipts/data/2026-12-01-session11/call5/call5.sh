#!/usr/bin/env bash
# Session 11 call 5: main at 195b74a (the shared expert's pair, the cluster FP8 linears, hc_pre's scalar warp), alone:
# the kernel contract, the CUDA tests, and plumb synth (kernels and layers, every row count) as JSON.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin; R=$(mktemp -d)
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; $B/plumb version; date -u; } | tee $R/gpu.txt
timeout -k 5 200 $B/plumb contract --backend cuda --json $R/contract-cuda.json > $R/contract-cuda.txt 2>&1; tail -1 $R/contract-cuda.txt
timeout -k 5 200 $B/test_dsv4_forward --gtest_filter='*cuda*:Cuda*' > $R/cuda-tests.txt 2>&1; grep -E '^\[  (PASSED|FAILED|SKIPPED)' $R/cuda-tests.txt
echo "t=$SECONDS"
timeout -k 5 300 $B/plumb synth --json $R/synth.json > $R/synth.txt 2>&1; grep -vE "^(layers|kernels):" $R/synth.txt | tail -75
tar -czf $OUT/call5.tgz -C $R .
echo "t=$SECONDS"
