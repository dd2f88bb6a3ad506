#!/usr/bin/env bash
# Session 13 call 4: main as it lands (43d0444: the FP8 block sum and next-s13b merged, fp4_experts split): the
# contract, the CUDA tests, the bits' fingerprint, and plumb synth --json (issue 12's targets).
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
R=$(mktemp -d); I=$(cat .device/ids.txt)
$B/plumb version | tee $R/version.txt
for c in 1 16; do timeout -k 5 60 $B/plumb logits --backend cuda --ids "$I" --chunk $c --out /tmp/m-$c.bin --mtp-out /tmp/m-$c.mtp >/dev/null 2>&1
  echo "chunk $c sha256: $(cat /tmp/m-$c.bin /tmp/m-$c.mtp | sha256sum | cut -c1-16)"; done | tee $R/checks.txt
timeout -k 5 150 $B/plumb contract --backend cuda > $R/contract-cuda.txt 2>&1; tail -1 $R/contract-cuda.txt | tee -a $R/checks.txt
echo "CUDA tests: $(timeout -k 5 120 $B/test_dsv4_forward --gtest_filter='*cuda*:Cuda*' 2>&1 | tee $R/cuda-tests.txt | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')" | tee -a $R/checks.txt
echo "t=$SECONDS"
timeout -k 5 240 $B/plumb synth --json $R/synth.json > $R/synth.txt 2>&1; grep -vE "^(layers|kernels):" $R/synth.txt | tail -75
tar -czf $OUT/call4.tgz -C $R .; cp $R/checks.txt $R/synth.json $OUT/
echo "t=$SECONDS"
