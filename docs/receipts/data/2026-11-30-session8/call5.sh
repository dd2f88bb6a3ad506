#!/usr/bin/env bash
# Session 8 call 5: main as merged (fd00646) - its bits (fingerprint of the tiny model's logits and MTP logits at
# chunk 1 and 16, as ab-builds computes it; main gave cf824e82009a0f99 in calls 1-4), its contract and CUDA tests.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin; I=$(cat .device/ids.txt)
$B/plumb version
for c in 1 16; do
  timeout -k 5 60 $B/plumb logits --backend cuda --ids "$I" --chunk $c --out /tmp/m-$c.bin --mtp-out /tmp/m-$c.mtp --json /tmp/m-$c.json >/dev/null 2>&1 || echo "chunk $c failed"
  echo "main chunk $c sha256: $(cat /tmp/m-$c.bin /tmp/m-$c.mtp | sha256sum | cut -c1-16)"
done | tee $OUT/fingerprint.txt
timeout -k 5 150 $B/plumb contract --backend cuda > $OUT/contract.txt 2>&1; tail -1 $OUT/contract.txt
timeout -k 5 150 $B/test_dsv4_forward --gtest_filter='*cuda*:Cuda*' > $OUT/tests.txt 2>&1; tail -1 $OUT/tests.txt
echo "t=$SECONDS"
