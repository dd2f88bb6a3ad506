#!/usr/bin/env bash
# Session 21 call 1 (carry [".device"], timeout_s 595). Two experiments, each against its own A/B switch:
#   next-split-matrix (d2c03ab): the gate/up pass's 8-row passes put w1 and w3 on separate warps, twice the warps
#     with each warp's sums unchanged (PLUMB_EXPERTS_SPLIT_MATRIX);
#   next-dense-ring-deep (ac0ae9b; session 20's next/dense-ring-deep.patch): ring refills in the deep row-by-row
#     bf16 kernels only (PLUMB_DENSE_RING).
# Built with: scripts/device-bundle-ab next-split-matrix next-dense-ring-deep -- test_dsv4_forward (main's test
# binary removed). Answers: bits against main (tiny model, chunk 1 and 16, switches on and off); the experts'
# contract entry (its gate 3 holds 8-row passes, now split, bit-equal to 16- and 32-row passes at release width);
# the CUDA tests; the kernel timer at one row; the experts kernel classes; the round alternated, the order rotated.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/gpu.txt
E1=plumb-next-split-matrix S1=PLUMB_EXPERTS_SPLIT_MATRIX E2=plumb-next-dense-ring-deep S2=PLUMB_DENSE_RING
CONTRACTS="none" LIGHT=1 KERNELS=0 AB="plumb $E1 $E1@$S1=0 $E2 $E2@$S2=0" bash tools/device/ab-builds.sh > /dev/null
cat $OUT/checks.txt; echo "t=$SECONDS"
{
  for b in next-split-matrix; do
    echo "$b CUDA tests: $(timeout -k 5 150 $B/test_dsv4_forward-$b --gtest_filter='*cuda*:Cuda*' 2>&1 | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')"
  done
  echo "$E1 fp4_experts_cuda: $(timeout -k 5 120 $B/$E1 contract --backend cuda --only fp4_experts_cuda 2>&1 | tail -1)"
  for k in dense_linear compressor_project router_weights; do
    echo "$E2 $k: $(timeout -k 5 60 $B/$E2 contract --backend cuda --only $k 2>&1 | tail -1)"
  done
} | tee $OUT/tests.txt
echo "t=$SECONDS"
for v in "$E1 $S1" "$E2 $S2"; do read -r e s <<< "$v"
  for sw in 1 0; do
    env $s=$sw PLUMB_CUDA_KERNEL_TIMES=1 timeout -k 5 60 $B/$e synth --only layers --rows 1 --repeats 4 > /tmp/kt.txt 2>&1
    sed -n '/kernel (device time)/,$p' /tmp/kt.txt > $OUT/kernel-times-$e-switch$sw.txt
    echo "$e switch $sw: $(grep -E '^(experts_pass|dense_linear)' $OUT/kernel-times-$e-switch$sw.txt | awk '{printf "%s %s %s us; ", $1, $2, $5}')"
  done
done | tee $OUT/kernel-timer.txt
echo "t=$SECONDS"
for sw in 1 0; do
  env $S1=$sw timeout -k 5 90 $B/$E1 synth --only kernels > $OUT/kernels-$E1-switch$sw.txt 2>&1
  echo "switch $sw:"; grep -E "^experts" $OUT/kernels-$E1-switch$sw.txt
done | tee $OUT/experts-classes.txt
echo "t=$SECONDS"
STOP_AFTER=$((560 - SECONDS - 20)) bash tools/device/alternate.sh $E1 $E1@$S1=0 $E2 $E2@$S2=0 > /dev/null
cat $OUT/medians.txt
python3 tools/device/alternation_table.py $OUT/rounds.txt $E2 $E2@$S2=0 | tee $OUT/medians-$E2.txt
echo "t=$SECONDS"
