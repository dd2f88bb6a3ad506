#!/usr/bin/env bash
# Run in session 22 as call 1 (main e3d3775, branch next-nt2-bounds at 1610d27), its output beside it.
# Prepared in session 21, not run (carry [".device"], timeout_s 560): next-nt2-bounds (next/nt2-bound.patch): the
# experts' 16-row passes held to 168 registers, three blocks a multiprocessor, so a pass over six experts (1536
# warps) fits one wave (PLUMB_EXPERTS_NT2_BOUND), against its switch off (main's kernels; tools/ptx_diff.py: every
# existing kernel's PTX unchanged). Register allocation only: the same bits.
# Build: git checkout -b next-nt2-bounds main && git am docs/receipts/data/2026-12-01-session21/next/nt2-bound.patch,
# back on main: scripts/device-bundle-ab next-nt2-bounds -- test_dsv4_forward (remove main's test binary). It can
# share a bundle with next-fp8-even (call-fp8-even.sh): build both in one device-bundle-ab and keep one test binary.
# Answers: bits against main at chunk 1 and 16 with the switch on and off; the experts' contract entry (its 16-row
# variant); the CUDA tests; the experts kernel classes (16 rows on the same 6: 94.5 us in session 21, 2.25x one
# row); the kernel timer at 16 rows; the round alternated (the 16-row column is the one to read).
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
R=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt
E=plumb-next-nt2-bounds S=PLUMB_EXPERTS_NT2_BOUND
CONTRACTS="none" LIGHT=1 KERNELS=0 AB="plumb $E $E@$S=0" OUT=$R bash tools/device/ab-builds.sh > /dev/null
cat $R/checks.txt; echo "t=$SECONDS"
{
  T=$B/test_dsv4_forward-next-nt2-bounds
  [[ -x $T ]] && echo "CUDA tests: $(timeout -k 5 150 $T --gtest_filter='*cuda*:Cuda*' 2>&1 | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')"
  echo "fp4_experts_cuda: $(timeout -k 5 150 $B/$E contract --backend cuda --only fp4_experts_cuda 2>&1 | tail -1)"
} | tee $R/tests.txt
echo "t=$SECONDS"
for sw in 1 0; do
  env $S=$sw PLUMB_CUDA_KERNEL_TIMES=1 timeout -k 5 60 $B/$E synth --only layers --rows 16 --repeats 4 > /tmp/kt.txt 2>&1
  sed -n '/kernel (device time)/,$p' /tmp/kt.txt > $R/kernel-times-16rows-switch$sw.txt
  echo "switch $sw: $(grep -E '^experts_pass' $R/kernel-times-16rows-switch$sw.txt | awk '{printf "%s %s us; ", $2, $5}')"
  env $S=$sw timeout -k 5 90 $B/$E synth --only kernels > $R/kernels-switch$sw.txt 2>&1
  grep -E "^experts" $R/kernels-switch$sw.txt
done | tee $R/experts.txt
echo "t=$SECONDS"
STOP_AFTER=$((500 - SECONDS)) OUT=$R bash tools/device/alternate.sh $E $E@$S=0 > /dev/null
cat $R/medians.txt
tar -czf $OUT/call.tgz -C $R .
cp $R/checks.txt $R/tests.txt $R/experts.txt $R/medians.txt $OUT/
echo "t=$SECONDS"
