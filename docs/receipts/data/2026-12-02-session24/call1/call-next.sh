#!/usr/bin/env bash
# Prepared in session 23, not run (carry [".device"], timeout_s 600). Four same-bits experiments in one build, each
# with its own switch (default on):
#   next/logits-smem-tree.patch: attention_logits' lane partials meet in shared memory (two lanes a dot) instead of
#     16 shuffle trees a warp, the tree's own adds (next/tree_check.cpp checks the pairing on the host:
#     g++ -O2 tree_check.cpp && ./a.out). PLUMB_ATTENTION_SMEM_TREE.
#   next/fp8-pass16.patch: at 9-16 rows the FP8 cluster kernels and the shared expert's fused pair take one pass of
#     two 8-row tiles instead of two 8-row passes. PLUMB_FP8_PASS16.
#   next/indexer-rows4.patch: indexer_scores takes four index rows a warp at once. PLUMB_INDEXER_ROWS4.
#   next/wo-a-pairs.patch: the wo_a kernel's blocks take two feature tiles, a K quarter's two warps sharing its
#     staged activations (wo_a at 16 rows was 43.2 us, 8 rows 22.9). PLUMB_WO_A_PAIRS.
# Build: git checkout -b next-s24 main && git am docs/receipts/data/2026-12-01-session23/next/{logits-smem-tree,
# fp8-pass16,indexer-rows4,wo-a-pairs}.patch, back on main: scripts/device-bundle-ab next-s24.
# Answers: bits against main with all on and each off (all must be cf824e82009a0f99); the whole contract (gate 3
# holds 9-16 rows as served bit-equal to each row alone); the kernel timer at 1 and 16 rows with all on and with
# each off (session 23 call 3 at 16 rows: attention_logits 16x10x16 87.1 us, fp8_linear_fused_pair 32.7,
# fp8_linear_cluster 512x1x1 16.2, indexer_scores 16x132x1 68.9, fp8_dense_mma 34.1); wo_a's class with
# PLUMB_WO_A_PAIRS on and off; the round alternated, all on against all off (the
# kernel timer apportions a difference); then plumb's kernel classes and the torch peer in the same call (issue 12
# asks for the peer in the same run; since 09748df the peer has wo_a as the release runs it, a bf16 grouped GEMM).
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
R=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt
E=plumb-next-s24 S1=PLUMB_ATTENTION_SMEM_TREE S2=PLUMB_FP8_PASS16 S3=PLUMB_INDEXER_ROWS4 S4=PLUMB_WO_A_PAIRS
OFF="$E@$S1=0,$S2=0,$S3=0,$S4=0"
CONTRACTS="none" LIGHT=1 KERNELS=0 AB="plumb $E $E@$S1=0 $E@$S2=0 $E@$S3=0 $E@$S4=0" OUT=$R bash tools/device/ab-builds.sh > /dev/null
cat $R/checks.txt; echo "t=$SECONDS"
echo "contract: $(timeout -k 5 150 $B/$E contract --backend cuda 2>&1 | tee $R/contract.txt | tail -1)" | tee $R/tests.txt
for rows in 16 1; do for v in "$S1=1" "$S1=0" "$S2=0" "$S3=0" "$S4=0"; do t=${v//=/-}
  env $v PLUMB_CUDA_KERNEL_TIMES=1 timeout -k 5 60 $B/$E synth --only layers --rows $rows --repeats 4 > /tmp/kt.txt 2>&1
  sed -n '/kernel (device time)/,$p' /tmp/kt.txt > "$R/kernel-times-${rows}rows-$t.txt"
  echo "$rows rows, $v: $(grep -E '^(attention_logits|fp8_linear_fused_pair|fp8_linear_cluster|indexer_scores|fp8_dense_mma) ' "$R/kernel-times-${rows}rows-$t.txt" | awk '{printf "%s %s %s us; ", $1, $2, $5}')"
done; done | tee $R/timer.txt
echo "t=$SECONDS"
STOP_AFTER=$((350 - SECONDS)) OUT=$R bash tools/device/alternate.sh $E $OFF > /dev/null
cat $R/medians.txt; echo "t=$SECONDS"
timeout -k 5 60 $B/plumb synth --only kernels > $R/kernels.txt 2>&1
for v in "$S4=1" "$S4=0"; do env $v timeout -k 5 60 $B/$E synth --only kernels 2>&1 | grep -E "^dense fp8" | sed "s/^/$v: /"; done | tee $R/wo_a.txt
PYTHONUNBUFFERED=1 timeout -k 5 90 python3 tools/device/synth_peer.py $R/synth_peer.json > $R/synth_peer.txt 2>&1
grep -E "^(fp8 rows|dense fp8) .* (1|8) " $R/kernels.txt; grep -E "block-scaled .* (1|8) |grouped .* (1|8|16) |copy bandwidth" $R/synth_peer.txt | head -24
tar -czf $OUT/call.tgz -C $R .
cp $R/checks.txt $R/tests.txt $R/timer.txt $R/medians.txt $R/kernels.txt $R/wo_a.txt $R/synth_peer.txt $OUT/ 2>/dev/null
echo "t=$SECONDS"
