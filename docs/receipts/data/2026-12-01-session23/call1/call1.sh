#!/usr/bin/env bash
# Prepared in session 22, not run (carry [".device"], timeout_s 360): next-drop-tiers (next/drop-tiers.patch,
# `git am` on main): the tiers' host path and slot selection removed, which changes the ADAPT kernels' prologue (and
# their spills, tools/kernel_sizes.py), so their bits and speed are checked before it merges. Build:
# git checkout -b next-drop-tiers main && git am docs/receipts/data/2026-12-01-session22/next/drop-tiers.patch, back
# on main: scripts/device-bundle-ab next-drop-tiers. Answers: bits against main at chunk 1 and 16 with
# PLUMB_EXPERTS_ADAPT on and off; the experts' contract entry; the experts classes (main's in session 22 call 4:
# 8 rows routed apart 228.4 us, 16 rows routed apart 441.2, 8 and 16 rows on the same 6 55.6 and 77.0); then the
# torch peer with its new block-scaled FP8 column.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
R=$(mktemp -d); E=plumb-next-drop-tiers S=PLUMB_EXPERTS_ADAPT
CONTRACTS="none" LIGHT=1 KERNELS=0 AB="plumb $E $E@$S=0" OUT=$R bash tools/device/ab-builds.sh > /dev/null
cat $R/checks.txt; echo "t=$SECONDS"
echo "fp4_experts_cuda: $(timeout -k 5 60 $B/$E contract --backend cuda --only fp4_experts_cuda 2>&1 | tail -1)" | tee $R/tests.txt
for b in plumb $E; do echo "$b"; timeout -k 5 40 $B/$b synth --only kernels 2>&1 | grep -E "^experts.* (8|16) "; done | tee $R/experts.txt
# The block-scaled FP8 peer (synth_peer.py since 7fb1be1: the model's own 1x128 / 128x128 scales), first run.
PYTHONUNBUFFERED=1 timeout -k 5 150 python3 tools/device/synth_peer.py $R/synth_peer.json > $R/synth_peer.txt 2>&1
grep -E "block-scaled|copy bandwidth" $R/synth_peer.txt | head -40
cp $R/*.txt $R/*.json $OUT/; echo "t=$SECONDS"
