#!/usr/bin/env bash
# Prepared at the end of session 12 for the next session's first call (carry [".device"], timeout_s 540; about 6-7
# minutes). main (2e52caa: the kernels of f96ea80, which ran in session 12 call 6) against two builds NOT yet run
# on a GPU, each also with its A/B switch off:
#   next-fp8-block-sum (c80fc82): the two-launch FP8 kernel sums 2-8 K splits in shared memory, blocks of
#     max(4, splits) warps (wo_b: 8 splits, blocks of 8), where they went through the global tail
#   next-pv-staged (ff51565): the one-wave attention_pv copies each softmax block's keys to shared memory with
#     cp.async a stage of 32 keys ahead
# tools/device/ab-builds.sh does the bits (chunk 1 and 16 against main), the contracts and the timings; then the
# branches' CUDA tests and their kernels alone under ncu. Expect the fingerprint cf824e82009a0f99 from every
# build, the contract (24 kernels, 34 controls red) and the CUDA tests (15/15) to pass.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
N="next-fp8-block-sum next-pv-staged"
AB="plumb plumb-next-fp8-block-sum plumb-next-fp8-block-sum@PLUMB_FP8_BLOCK_SUM=0 plumb-next-pv-staged plumb-next-pv-staged@PLUMB_PV_STAGED=0" \
  bash tools/device/ab-builds.sh
R=$(mktemp -d)
for n in $N; do
  echo "$n CUDA tests: $(timeout -k 5 120 $B/test_dsv4_forward-$n --gtest_filter='*cuda*:Cuda*' 2>&1 | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')"
done | tee $R/tests.txt
for v in plumb $(for n in $N; do echo plumb-$n; done); do  # wq_b, wo_b and the attention kernels of one CSA/4 layer
  PLUMB_CUDA_GRAPHS=0 timeout -k 5 90 /usr/local/cuda/bin/ncu --clock-control none --kernel-name regex:'fp8_linear_kernel|attention_pv|attention_logits' \
    --launch-count 5 --metrics gpu__time_duration.sum,launch__registers_per_thread \
    $B/$v synth --only layers --rows 1 --repeats 1 --config .device/csa-config.json > $R/ncu-$v.txt 2>&1
  echo "-- $v"; grep -E "^  [^ ]|gpu__time_duration" $R/ncu-$v.txt | sed -E 's/\(anonymous namespace\):://g; s/plumb::cuda::(ops::)?//g; s/\(.*\) \(/ (/; s/, Context.*//; s/ +/ /g' | paste - - | cut -c1-140
done | tee $R/ncu-summary.txt
tar -czf $OUT/next-call1-extra.tgz -C $R .; cp $R/tests.txt $R/ncu-summary.txt $OUT/
echo "t=$SECONDS"
