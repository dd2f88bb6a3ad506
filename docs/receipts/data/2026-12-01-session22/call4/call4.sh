#!/usr/bin/env bash
# Session 22, call 4 (carry [".device"], timeout_s 560): next-tiers against its switches. From 5 rows on, the experts
# with at most 4 pairs in the even columns, either in a launch of their own (PLUMB_EXPERTS_TIERS, on) or in one
# 8-row kernel holding both bodies (PLUMB_EXPERTS_TIERS=0, PLUMB_EXPERTS_ADAPT on), against the old dispatch (both
# 0). Built on main (81bffb5): scripts/device-bundle-ab next-tiers -- test_dsv4_forward, main's test binary removed.
# Answers: bits against main at chunk 1 and 16 for each variant; the CUDA tests; the experts' contract entry under
# each dispatch (its "passes as served" variant runs them); the experts classes; the kernel timer at 16 rows; the
# round alternated (the 16-row column is the one to read: 1 and 4 rows are untouched).
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
R=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt
E=plumb-next-tiers S=PLUMB_EXPERTS_TIERS S2=PLUMB_EXPERTS_ADAPT
V="$E $E@$S=0 $E@$S=0,$S2=0"
CONTRACTS="none" LIGHT=1 KERNELS=0 AB="plumb $V" OUT=$R bash tools/device/ab-builds.sh > /dev/null
cat $R/checks.txt; echo "t=$SECONDS"
{
  echo "CUDA tests: $(timeout -k 5 150 $B/test_dsv4_forward-next-tiers --gtest_filter='*cuda*:Cuda*' 2>&1 | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')"
  for v in "$S=1" "$S=0" "$S=0 $S2=0"; do
    echo "fp4_experts_cuda ($v): $(env $v timeout -k 5 100 $B/$E contract --backend cuda --only fp4_experts_cuda 2>&1 | tail -1)"
  done
} | tee $R/tests.txt
echo "t=$SECONDS"
for v in "$S=1" "$S=0" "$S=0 $S2=0"; do t=$(echo "$v" | tr ' =' '_-')
  env $v PLUMB_CUDA_KERNEL_TIMES=1 timeout -k 5 60 $B/$E synth --only layers --rows 16 --repeats 4 > /tmp/kt.txt 2>&1
  sed -n '/kernel (device time)/,$p' /tmp/kt.txt > "$R/kernel-times-16rows-$t.txt"
  echo "$v: $(grep -E '^experts_pass' "$R/kernel-times-16rows-$t.txt" | awk '{printf "%s %s us; ", $2, $5}')"
  env $v timeout -k 5 90 $B/$E synth --only kernels > "$R/kernels-$t.txt" 2>&1
  grep -E "^experts" "$R/kernels-$t.txt"
done | tee $R/experts.txt
echo "t=$SECONDS"
STOP_AFTER=$((470 - SECONDS)) OUT=$R bash tools/device/alternate.sh $V > /dev/null
cat $R/medians.txt
python3 tools/device/alternation_table.py $R/rounds.txt $E@$S=0 $E@$S=0,$S2=0 | tail -5
tar -czf $OUT/call.tgz -C $R .
cp $R/checks.txt $R/tests.txt $R/experts.txt $R/medians.txt $OUT/
echo "t=$SECONDS"
