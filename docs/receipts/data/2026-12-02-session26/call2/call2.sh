#!/usr/bin/env bash
# Session 26, call 2 (carry [".device"], timeout_s 600): the weight streams (experts, FP8 linears, wo_a) under an
# L2 evict-first policy (branch next-evict-first, one commit on main d401a34, PLUMB_STREAM_EVICT_FIRST), so that
# the activations, caches and scratch the small kernels read between weight kernels stay in the L2. Built with
# scripts/device-bundle-ab next-evict-first. Answers: bits against main (loads only, so they must be
# cf824e82009a0f99); the kernel timer at one row with the policy on and off (which kernels move); the round
# alternated: the policy on, off (same binary; the policy register is held either way), and main's binary.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
R=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt
E=plumb-next-evict-first S=PLUMB_STREAM_EVICT_FIRST
CONTRACTS="none" LIGHT=1 KERNELS=0 AB="plumb $E $E@$S=0" OUT=/tmp/ab bash tools/device/ab-builds.sh > /dev/null
cp /tmp/ab/checks.txt $R/bits.txt; cat $R/bits.txt | tee $OUT/bits.txt; echo "t=$SECONDS"
for v in "$S=1" "$S=0"; do
  env $v PLUMB_CUDA_KERNEL_TIMES=1 timeout -k 5 60 $B/$E synth --only layers --rows 1 --repeats 4 > /tmp/kt.txt 2>&1
  sed -n '/kernel (device time)/,$p' /tmp/kt.txt > "$R/kernel-times-1row-${v//=/-}.txt"
done
paste -d'|' <(head -45 "$R/kernel-times-1row-$S-1.txt" | cut -c1-90) <(head -45 "$R/kernel-times-1row-$S-0.txt" | cut -c1-90) | tee $R/timer.txt > $OUT/timer.txt
head -30 $R/timer.txt; echo "t=$SECONDS"
REPS=16 STOP_AFTER=$((520 - SECONDS)) OUT=$R bash tools/device/alternate.sh $E $E@$S=0 plumb > /dev/null
cp $R/medians.txt $OUT/; cat $R/medians.txt
tar -czf $OUT/call.tgz -C $R .
echo "t=$SECONDS"
