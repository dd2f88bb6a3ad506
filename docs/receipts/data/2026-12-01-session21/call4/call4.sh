#!/usr/bin/env bash
# Session 21 call 4 (carry [".device"], timeout_s 150): main 02c34aa (the experts' even columns merged) alone: the
# whole contract on CUDA and the tiny model's fingerprint at chunk 1 and 16. Built with scripts/device-bundle.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
$B/plumb version
I=$(cat .device/ids.txt)
for c in 1 16; do
  timeout -k 5 60 $B/plumb logits --backend cuda --ids "$I" --chunk $c --out /tmp/l-$c.bin --mtp-out /tmp/l-$c.mtp --json /tmp/l.json >/dev/null 2>&1
  echo "chunk $c sha256: $(cat /tmp/l-$c.bin /tmp/l-$c.mtp | sha256sum | cut -c1-16)"
done
timeout -k 5 110 $B/plumb contract --backend cuda > $OUT/contract.txt 2>&1; tail -1 $OUT/contract.txt
echo "t=$SECONDS"
