#!/usr/bin/env bash
# Prepared in session 24, not run (carry [".device"], timeout_s 600). Two same-sums experiments on the P.V, each
# with its own switch (pv-ring applies on top of pv-heads):
#   next/pv-heads.patch: a P.V block serves 8 heads, four a thread, wherever the launch still gives every
#     multiprocessor a block (16 rows of a CSA layer: 512 blocks instead of 1024), so each key value a thread loads
#     serves four heads instead of two; PLUMB_PV_HEADS=4 or 8 forces one. Registers (tools/kernel_sizes.py): the
#     32-key kernel 72 either way, no spills; the one-wave kernel 152 at 8 heads, 150 at 4.
#   next/pv-ring.patch: in the one-wave kernel (1-2 rows) each thread's key values go through its own cp.async ring
#     in shared memory (4 stages of 32 keys, 128 KB a block), three batches ahead of its sums; the plain kernel waits
#     for each batch of 64 before its sums, 8 round trips a chunk. PLUMB_PV_RING=0 gives the plain kernel. 127 / 168
#     registers (4 / 8 heads), no spills. next/ring_schedule_check.py checks the ring's batch order and stages on the
#     host (python3 ring_schedule_check.py).
# Build: git checkout -b next-pv main && git am docs/receipts/data/2026-12-02-session24/next/{pv-heads,pv-ring}.patch,
# back on main: scripts/device-bundle-ab next-pv -- test_dsv4_forward, then remove main's test binary
# (.device/bin/test_dsv4_forward.gz) so the carry stays under 64 MiB.
# Answers: bits against main with the rules, with 4 and 8 forced and with the ring off (all must be
# cf824e82009a0f99); the CUDA tests with the rules, with 8 heads and with the ring off; the whole contract with the
# rules (the release attention shapes at 16 rows take 8 heads a block and the plain 32-key kernel, each row alone 4
# heads and the ring: gate 3 holds them bit-equal) and the attention entries with 8 heads forced and with the ring
# off; the kernel timer's P.V and logits at 16 and 1 row per setting (session 24: the CSA P.V about 60 us at 16 rows,
# 15.7 at one row); then the round alternated, both on against both off. Each step writes to $OUT as it ends; the
# device tool brings back only the first 8 files of $OUT (the rest are in call.tgz).
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
R=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt
E=plumb-next-pv H=PLUMB_PV_HEADS G=PLUMB_PV_RING
mkdir -p /tmp/ab
CONTRACTS="none" LIGHT=1 KERNELS=0 AB="plumb $E $E@$H=4 $E@$H=8 $E@$G=0" OUT=/tmp/ab bash tools/device/ab-builds.sh > /dev/null
cp /tmp/ab/checks.txt $R/bits.txt; cat $R/bits.txt | tee $OUT/bits.txt; echo "t=$SECONDS"
{
  for v in "$H=" "$H=8" "$G=0"; do
    echo "CUDA tests $v: $(env $v timeout -k 5 100 $B/test_dsv4_forward-next-pv --gtest_filter='*cuda*:Cuda*' 2>&1 | tee $R/cuda-tests-${v//=/-}.log | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')"
  done
  timeout -k 5 150 $B/$E contract --backend cuda > $R/contract.txt 2>&1
  grep -E "attention|SUMMARY" $R/contract.txt
  for v in "$H=8" "$G=0"; do for k in window_attention sparse_attention attention_rope; do
    echo "$v $(env $v timeout -k 5 60 $B/$E contract --backend cuda --only $k 2>&1 | grep -E "^$k ")"
  done; done
} | tee $R/tests.txt $OUT/tests.txt
echo "t=$SECONDS"
for rows in 16 1; do for v in "$H=" "$H=4" "$H=8" "$G=0"; do t=${v//=/-}
  env $v PLUMB_CUDA_KERNEL_TIMES=1 timeout -k 5 60 $B/$E synth --only layers --rows $rows --repeats 4 > /tmp/kt.txt 2>&1
  sed -n '/kernel (device time)/,$p' /tmp/kt.txt > "$R/kernel-times-${rows}rows-$t.txt"
  echo "$rows rows $v: $(grep -E '^attention_(pv|logits) ' "$R/kernel-times-${rows}rows-$t.txt" | awk '{printf "%s %s %s us; ", $1, $2, $5}')"
done; done | tee $R/timer.txt $OUT/timer.txt
echo "t=$SECONDS"
STOP_AFTER=$((470 - SECONDS)) OUT=$R bash tools/device/alternate.sh $E $E@$H=4,$G=0 > /dev/null
cp $R/medians.txt $OUT/; cat $R/medians.txt
tar -czf $OUT/call.tgz -C $R .
echo "t=$SECONDS"
