#!/usr/bin/env bash
# Prepared at the end of session 7 for the next session's first device call (carry [".device"]; about 7 minutes):
# main against next-experts-f16mma (the same bits expected), next-experts-wgmma and next-fp8-wgmma (new bits: each
# one's contract and the wgmma CUDA tests decide). test_dsv4_forward-next-fp8-wgmma holds both wgmma changes.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
# first the one-tile wgmma probe (CudaWgmma.*: exact product, and a planted swapped descriptor that must fail)
timeout -k 5 60 $B/test_dsv4_forward-next-fp8-wgmma --gtest_filter='CudaWgmma.*' 2>&1 | tail -15
timeout -k 5 120 $B/test_dsv4_forward-next-fp8-wgmma --gtest_filter='*cuda*:Cuda*' > $OUT/tests-fp8-wgmma.txt 2>&1
tail -3 $OUT/tests-fp8-wgmma.txt; grep -h "damped tiny model, cuda" $OUT/tests-fp8-wgmma.txt
echo "t=$SECONDS"
# main 67febe8 changed rope, position_bias and the indexer's query transpose after the last GPU run (one helper,
# same bits by construction): its fingerprint must stay cf824e82009a0f99 (ab-builds prints it), and its kernel
# times should stay near calls 3-4's (rope 6.7, position_bias 4.7, indexer_scores 22-27 us)
PLUMB_CUDA_KERNEL_TIMES=1 timeout -k 5 60 $B/plumb synth --only layers --rows 1 --repeats 4 2>&1 | grep -E "^kernel|^(rope|position_bias|indexer_scores|dense_linear) " | tee $OUT/kernel-times-main.txt
LIGHT=1 AB="plumb plumb-next-experts-f16mma plumb-next-experts-wgmma plumb-next-fp8-wgmma" timeout -k 5 450 bash tools/device/ab-builds.sh
echo "t=$SECONDS"
