#!/usr/bin/env bash
# Prepared in session 20, not run (carry [".device"], timeout_s 595): dense-ring-deep (next/dense-ring-deep.patch, on
# ea95823: the deep row-by-row bf16 kernels -- the router gate, the compressors and the indexer's weights at up to
# four rows -- keep 16 steps of weight loads in flight through the products; wo_a and the batched kernels as on
# main; PLUMB_DENSE_RING) against its switch off. Session 20 call 4 ran the refills in every vector kernel: the
# router gate 15.2 -> 12.5 us, wo_a 26.4 -> 28.4, the round +1.7%.
# Build: git checkout -b next-dense-ring-deep ea95823, then
#   git am docs/receipts/data/2026-12-01-session20/next/dense-ring-deep.patch
# and back on main: scripts/device-bundle-ab next-dense-ring-deep -- test_dsv4_forward (remove main's test binary).
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/gpu.txt
E=plumb-next-dense-ring-deep; S=PLUMB_DENSE_RING
CONTRACTS="none" LIGHT=1 KERNELS=0 AB="plumb $E $E@$S=0" bash tools/device/ab-builds.sh
T=$B/test_dsv4_forward-next-dense-ring-deep
echo "CUDA tests: $(timeout -k 5 200 $T --gtest_filter='*cuda*:Cuda*' 2>&1 | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')" \
  | tee $OUT/tests.txt
for k in dense_linear compressor_project router_weights indexer_topk; do
  $B/$E contract --backend cuda --only $k 2>&1 | tail -1 | sed "s/^/$k: /" | tee -a $OUT/tests.txt
done
for sw in 1 0; do
  env $S=$sw PLUMB_CUDA_KERNEL_TIMES=1 timeout -k 5 60 $B/$E synth --only layers --rows 1 --repeats 4 \
    > /tmp/kt-$sw.txt 2>&1
  sed -n '/kernel (device time)/,$p' /tmp/kt-$sw.txt > $OUT/kernel-times-switch$sw.txt
  echo "switch $sw: $(grep -E '^dense_linear' $OUT/kernel-times-switch$sw.txt | awk '{printf "%s %s us; ", $2, $5}')"
done
echo "t=$SECONDS"
STOP_AFTER=$((540 - SECONDS)) bash tools/device/alternate.sh $E $E@$S=0
echo "t=$SECONDS"
