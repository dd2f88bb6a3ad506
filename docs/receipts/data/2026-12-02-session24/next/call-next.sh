#!/usr/bin/env bash
# Prepared in session 24, not run (carry [".device"], timeout_s 600). One same-sums experiment with its own switch:
#   next/pv-heads.patch: a P.V block serves 8 heads, four a thread, wherever the launch still gives every
#     multiprocessor a block (16 rows of a CSA layer: 512 blocks instead of 1024), so each key value a thread loads
#     serves four heads instead of two; PLUMB_PV_HEADS=4 or 8 forces one. Registers (tools/kernel_sizes.py): the
#     32-key kernel 72 either way, no spills; the one-wave kernel 152 at 8 heads, 150 at 4.
# Build: git checkout -b next-pv-heads main && git am docs/receipts/data/2026-12-02-session24/next/pv-heads.patch,
# back on main: scripts/device-bundle-ab next-pv-heads -- test_dsv4_forward, then remove main's test binary
# (.device/bin/test_dsv4_forward.gz) so the carry stays under 64 MiB.
# Answers: bits against main with the rule and with 4 and 8 forced (all must be cf824e82009a0f99); the CUDA tests
# with the rule and with 8; the whole contract with the rule (the release attention shapes at 16 rows take 8 heads
# a block, each row alone 4: gate 3 holds them bit-equal) and the attention entries with 8 forced; the kernel timer's
# P.V at 16 and 1 row per setting (session 24: the CSA P.V at 16 rows about 60 us); then the round alternated
# against the switch at 4. Each step writes to $OUT as it ends; the device tool brings back only the first 8 files
# of $OUT, so the small ones are gathered into one tarball at the end.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
R=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt
E=plumb-next-pv-heads H=PLUMB_PV_HEADS
mkdir -p /tmp/ab
CONTRACTS="none" LIGHT=1 KERNELS=0 AB="plumb $E $E@$H=4 $E@$H=8" OUT=/tmp/ab bash tools/device/ab-builds.sh > /dev/null
cp /tmp/ab/checks.txt $R/bits.txt; cat $R/bits.txt | tee $OUT/bits.txt; echo "t=$SECONDS"
{
  for v in "$H=" "$H=8"; do
    echo "CUDA tests $v: $(env $v timeout -k 5 100 $B/test_dsv4_forward-next-pv-heads --gtest_filter='*cuda*:Cuda*' 2>&1 | tee $R/cuda-tests-${v//=/-}.log | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')"
  done
  timeout -k 5 150 $B/$E contract --backend cuda > $R/contract.txt 2>&1
  grep -E "attention|SUMMARY" $R/contract.txt
  for k in window_attention sparse_attention attention_rope; do
    echo "$H=8 $(env $H=8 timeout -k 5 60 $B/$E contract --backend cuda --only $k 2>&1 | grep -E "^$k ")"
  done
} | tee $R/tests.txt $OUT/tests.txt
echo "t=$SECONDS"
for rows in 16 1; do for v in "$H=" "$H=4" "$H=8"; do t=${v//=/-}
  env $v PLUMB_CUDA_KERNEL_TIMES=1 timeout -k 5 60 $B/$E synth --only layers --rows $rows --repeats 4 > /tmp/kt.txt 2>&1
  sed -n '/kernel (device time)/,$p' /tmp/kt.txt > "$R/kernel-times-${rows}rows-$t.txt"
  echo "$rows rows $v: $(grep -E '^attention_(pv|logits) ' "$R/kernel-times-${rows}rows-$t.txt" | awk '{printf "%s %s %s us; ", $1, $2, $5}')"
done; done | tee $R/timer.txt $OUT/timer.txt
echo "t=$SECONDS"
STOP_AFTER=$((470 - SECONDS)) OUT=$R bash tools/device/alternate.sh $E $E@$H=4 > /dev/null
cp $R/medians.txt $OUT/; cat $R/medians.txt
tar -czf $OUT/call.tgz -C $R .
echo "t=$SECONDS"
