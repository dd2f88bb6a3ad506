#!/usr/bin/env bash
# Session 19 call 6 (carry [".device"], timeout_s 150): the launches on the longest chain of a CSA, an HCA and a
# window layer at one row, and those beside it. next-chain-listing is main plus PLUMB_CUDA_KERNEL_TIMES=2 (the timer
# lists each lane shape's chain); its kernels are main's. Needs call 5's configs in .device/
# (cp docs/receipts/data/2026-12-01-session19/call5/*-config.json .device/).
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/gpu.txt
for kind in csa hca window; do
  PLUMB_CUDA_KERNEL_TIMES=2 timeout -k 5 90 $B/plumb-next-chain-listing synth --only layers --rows 1 --repeats 2 \
    --config .device/$kind-config.json > /tmp/kt-$kind.txt 2>&1
  sed -n '/kernel (device time)/,$p' /tmp/kt-$kind.txt > $OUT/chains-$kind.txt
  echo "== $kind: $(grep -c '^chain of a flush' $OUT/chains-$kind.txt) lane shapes; t=$SECONDS"
done
