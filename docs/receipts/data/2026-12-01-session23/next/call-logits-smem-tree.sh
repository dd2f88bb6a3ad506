#!/usr/bin/env bash
# Prepared in session 23, not run (carry [".device"], timeout_s 600): next-logits-smem-tree (next/logits-smem-tree.patch,
# `git am` on main): attention_logits' lane partials meet in shared memory (two lanes a dot) instead of 16 shuffle
# trees a warp; the same adds in the tree's pairing (next/tree_check.cpp checks the pairing on the host:
# g++ -O2 tree_check.cpp && ./a.out). Build: git checkout -b next-logits-smem-tree main && git am
# docs/receipts/data/2026-12-01-session23/next/logits-smem-tree.patch, back on main: scripts/device-bundle-ab
# next-logits-smem-tree. Answers: bits against main with PLUMB_ATTENTION_SMEM_TREE on and off (they must be
# identical); the whole contract; the kernel timer at 16 rows (attention_logits 16x10x16 was 87.1 us in session 23
# call 3); the round alternated against the switch; then plumb's kernel classes and the torch peer in the same call
# (issue 12 asks for the peer in the same run).
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
R=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt
E=plumb-next-logits-smem-tree S=PLUMB_ATTENTION_SMEM_TREE
CONTRACTS="none" LIGHT=1 KERNELS=0 AB="plumb $E $E@$S=0" OUT=$R bash tools/device/ab-builds.sh > /dev/null
cat $R/checks.txt; echo "t=$SECONDS"
echo "contract: $(timeout -k 5 150 $B/$E contract --backend cuda 2>&1 | tee $R/contract.txt | tail -1)" | tee $R/tests.txt
for v in "$S=1" "$S=0"; do t=${v//=/-}
  env $v PLUMB_CUDA_KERNEL_TIMES=1 timeout -k 5 60 $B/$E synth --only layers --rows 16 --repeats 4 > /tmp/kt.txt 2>&1
  sed -n '/kernel (device time)/,$p' /tmp/kt.txt > "$R/kernel-times-16rows-$t.txt"
  echo "$v: $(grep -E '^attention_logits' "$R/kernel-times-16rows-$t.txt" | awk '{printf "%s %s us; ", $2, $5}')"
done | tee $R/timer.txt
echo "t=$SECONDS"
STOP_AFTER=$((380 - SECONDS)) OUT=$R bash tools/device/alternate.sh $E $E@$S=0 > /dev/null
cat $R/medians.txt; echo "t=$SECONDS"
timeout -k 5 60 $B/plumb synth --only kernels > $R/kernels.txt 2>&1
PYTHONUNBUFFERED=1 timeout -k 5 120 python3 tools/device/synth_peer.py $R/synth_peer.json > $R/synth_peer.txt 2>&1
grep -E "^(fp8 rows|dense fp8) .* (1|8) " $R/kernels.txt; grep -E "block-scaled .* (1|8) |copy bandwidth" $R/synth_peer.txt | head -20
tar -czf $OUT/call.tgz -C $R .
cp $R/checks.txt $R/tests.txt $R/timer.txt $R/medians.txt $R/kernels.txt $R/synth_peer.txt $OUT/ 2>/dev/null
echo "t=$SECONDS"
