#!/usr/bin/env bash
# Session 8 call 2: main (e7b9d12 = 67febe8's GPU code) against next-fp8-fused-quant (the FP8 linear quantizes its
# own activations) and next-candidate2 (that + rope as it ran in 9b5b7df + the experts' input quantization joined
# to the expert lists). Same bits expected for both; the candidate's CUDA tests, its kernel timer, and the torch
# peer in the same run.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
timeout -k 5 150 $B/test_dsv4_forward-next-candidate2 --gtest_filter='*cuda*:Cuda*' > $OUT/tests-candidate2.txt 2>&1
tail -3 $OUT/tests-candidate2.txt; grep -h "tiny model, cuda vs cpu" $OUT/tests-candidate2.txt
echo "t=$SECONDS"
LIGHT=1 AB="plumb plumb-next-fp8-fused-quant plumb-next-candidate2" timeout -k 5 330 bash tools/device/ab-builds.sh
echo "t=$SECONDS"
for v in plumb plumb-next-candidate2; do
  PLUMB_CUDA_KERNEL_TIMES=1 timeout -k 5 60 $B/$v synth --only layers --rows 1 --repeats 4 2>&1 | sed -n '/kernel (device time)/,$p' > $OUT/kernel-times-$v.txt
done
head -24 $OUT/kernel-times-plumb-next-candidate2.txt
grep -E "^(act_quant|fp8_linear|rope|build_expert_lists|prepare_experts) " $OUT/kernel-times-plumb.txt
echo "t=$SECONDS"
timeout -k 5 70 python3 tools/device/synth_peer.py $OUT/synth_peer.json > $OUT/synth_peer.txt 2>&1; grep -E "copy|fp8 scaled_mm +(wq_b|wo_b)" $OUT/synth_peer.txt
echo "t=$SECONDS"
