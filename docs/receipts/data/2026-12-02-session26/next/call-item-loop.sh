#!/usr/bin/env bash
# Prepared in session 26 for the next one (carry [".device"], timeout_s 600): main's item loop in the adaptive
# experts kernels (b7f8c78, PLUMB_EXPERTS_ITEM_LOOP; merged on the evidence of session 26 call 3's kernel classes,
# where the loop ran in every pass kernel) measured in the round against its own switch. Build here:
# scripts/device-bundle test_dsv4_forward && gzip -f .device/bin/* (main's plumb and test binary, zipped to fit the
# carry). Answers: bits with each mode (must be cf824e82009a0f99); the CUDA tests; the experts' contract entry; the
# experts' kernel classes with the loop in none (0), the adaptive (1, the default) and all (2) pass kernels; the
# round alternated, mode 1 against 0 and 2.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
R=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt
S=PLUMB_EXPERTS_ITEM_LOOP
CONTRACTS="none" LIGHT=1 KERNELS=0 AB="plumb plumb@$S=0 plumb@$S=2" OUT=/tmp/ab bash tools/device/ab-builds.sh > /dev/null
cp /tmp/ab/checks.txt $R/bits.txt; cat $R/bits.txt | tee $OUT/bits.txt; echo "t=$SECONDS"
{
  echo "CUDA tests: $(timeout -k 5 100 $B/test_dsv4_forward --gtest_filter='*cuda*:Cuda*' 2>&1 | tee $R/cuda-tests.log | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')"
  echo "$(timeout -k 5 60 $B/plumb contract --backend cuda --only fp4_experts_cuda 2>&1 | tee "$R/contract-experts.txt" | grep -E '^fp4_experts')"
} | tee $R/tests.txt $OUT/tests.txt
for m in 1 0 2; do
  env $S=$m timeout -k 5 80 $B/plumb synth --only kernels > "$R/kernels-$S-$m.txt" 2>&1
  echo "$S=$m"; grep -E "^experts" "$R/kernels-$S-$m.txt"
done | tee $R/classes.txt $OUT/classes.txt
echo "t=$SECONDS"
STOP_AFTER=$((540 - SECONDS)) OUT=$R bash tools/device/alternate.sh plumb plumb@$S=0 plumb@$S=2 > /dev/null
cp $R/medians.txt $OUT/; cat $R/medians.txt
tar -czf $OUT/call.tgz -C $R .
echo "t=$SECONDS"
