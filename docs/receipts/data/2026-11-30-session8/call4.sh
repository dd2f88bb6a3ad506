#!/usr/bin/env bash
# Session 8 call 4: main (e7b9d12) against next-hybrid (the FP8 linear quantizes in the kernel only where rows x K
# blocks a split <= 16; main's two-launch kernel otherwise; rope as in 9b5b7df; experts' input quantization joined
# to the expert lists). Same bits expected; the contract gets a fourth fp8 variant (quantized in the linear).
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
timeout -k 5 150 $B/test_dsv4_forward-next-hybrid --gtest_filter='*cuda*:Cuda*' > $OUT/tests-hybrid.txt 2>&1
tail -3 $OUT/tests-hybrid.txt; grep -h "tiny model, cuda vs cpu" $OUT/tests-hybrid.txt
echo "t=$SECONDS"
LIGHT=1 AB="plumb plumb-next-hybrid" timeout -k 5 300 bash tools/device/ab-builds.sh
echo "t=$SECONDS"
for rep in 2 3; do for v in plumb plumb-next-hybrid; do
  timeout -k 5 60 $B/$v synth --only layers --rows 1 16 --repeats 10 2>&1 | grep -E "^43-layer round +(1 slot|4 slots), as drawn" | sed "s/^/$v rep$rep: /"
done; done | tee $OUT/rounds.txt
PLUMB_CUDA_KERNEL_TIMES=1 timeout -k 5 60 $B/plumb-next-hybrid synth --only layers --rows 1 --repeats 4 2>&1 | sed -n '/kernel (device time)/,$p' > $OUT/kernel-times-hybrid.txt
grep -E "^(act_quant|fp8_linear|fp8_linear_fused|prepare_experts|rope) " $OUT/kernel-times-hybrid.txt
echo "t=$SECONDS"
