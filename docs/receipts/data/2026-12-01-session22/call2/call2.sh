#!/usr/bin/env bash
# Run in session 22 as call 2 (main e3d3775, branch next-fp8-even at 4948cf2), its output beside it.
# Prepared in session 21, not run (carry [".device"], timeout_s 560): next-fp8-even (next/fp8-even.patch): the FP8
# two-launch and one-launch kernels' MMAs written out as the emulation's steps (PLUMB_FP8_WRITTEN), and the
# two-launch kernel at one to four rows in the MMA's even columns (PLUMB_FP8_EVEN), against its switches off (main's
# kernels: ptx_diff --registers). Code size (tools/kernel_sizes.py): the one-row block-sum kernel 1672 -> 1288 -> 944
# instructions, the one-launch kernel 1824 -> 1456, the shared expert's fused pair 3480 -> 2704.
# Build: git checkout -b next-fp8-even main && git am docs/receipts/data/2026-12-01-session21/next/fp8-even.patch,
# back on main: scripts/device-bundle-ab next-fp8-even -- test_dsv4_forward (remove main's test binary).
# Answers: bits against main at chunk 1 and 16 with every switch value; the FP8 contract entry (gate 3 holds a row
# alone, now in the even columns, bit-equal to 5 and 8 rows written out and to 16- and 32-row passes); the CUDA
# tests; the kernel timer at one row; the FP8 kernel classes; the round alternated with the order rotated.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
R=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt
E=plumb-next-fp8-even S=PLUMB_FP8_EVEN S2=PLUMB_FP8_WRITTEN
V="$E $E@$S=0 $E@$S=0,$S2=0"
CONTRACTS="none" LIGHT=1 KERNELS=0 AB="plumb $V" OUT=$R bash tools/device/ab-builds.sh > /dev/null
cat $R/checks.txt; echo "t=$SECONDS"
{
  echo "CUDA tests: $(timeout -k 5 150 $B/test_dsv4_forward-next-fp8-even --gtest_filter='*cuda*:Cuda*' 2>&1 | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')"
  echo "fp8_linear_cuda: $(timeout -k 5 150 $B/$E contract --backend cuda --only fp8_linear_cuda 2>&1 | tail -1)"
} | tee $R/tests.txt
echo "t=$SECONDS"
for v in "$S=1" "$S=0" "$S=0 $S2=0"; do t=$(echo "$v" | tr ' =' '_-')
  env $v PLUMB_CUDA_KERNEL_TIMES=1 timeout -k 5 60 $B/$E synth --only layers --rows 1 --repeats 4 > /tmp/kt.txt 2>&1
  sed -n '/kernel (device time)/,$p' /tmp/kt.txt > "$R/kernel-times-$t.txt"
  echo "$v: $(grep -E '^fp8_linear' "$R/kernel-times-$t.txt" | awk '{printf "%s %s %s us; ", $1, $2, $5}')"
  env $v timeout -k 5 90 $B/$E synth --only kernels > "$R/kernels-$t.txt" 2>&1
  grep -E "^fp8 rows +(wq_b|wo_b)" "$R/kernels-$t.txt"
done | tee $R/kernel-timer.txt
echo "t=$SECONDS"
STOP_AFTER=$((500 - SECONDS)) OUT=$R bash tools/device/alternate.sh $V > /dev/null
cat $R/medians.txt
python3 tools/device/alternation_table.py $R/rounds.txt $E@$S=0 $E@$S=0,$S2=0 | tail -5
tar -czf $OUT/call.tgz -C $R .
cp $R/checks.txt $R/tests.txt $R/kernel-timer.txt $R/medians.txt $OUT/
echo "t=$SECONDS"
