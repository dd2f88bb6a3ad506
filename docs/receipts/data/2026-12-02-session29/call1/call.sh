#!/usr/bin/env bash
# Prepared in session 28 for the next one (carry [".device"], timeout_s 600). Branch next-experts-sm-queues
# (experts-sm-queues.patch here; it applies to main from 3eeb264 on): a capped experts grid takes every unit from
# queues, one a multiprocessor, its warps taking their own multiprocessor's (%smid) first and the others' when it is
# dry (PLUMB_EXPERTS_SM_QUEUES), and the even kernels of 2-4 rows loop so their grid is capped
# (PLUMB_EXPERTS_EVEN_LOOP). Same items, same arithmetic: the bits must stay cf824e82009a0f99.
# Why (session 28): the block scheduler deals blocks over pairs of multiprocessors across the GPCs, so the busy first
# 384 blocks of a 528- or 768-block grid fall 2-4 to a multiprocessor (call 3), and 2 rows on the same 6 experts take
# 48.5 us where a grid exactly as wide as the work takes 43.1 (call 1); a cap set on the host lost routed apart and a
# grid fitted on the device kept the scheduler's placement (51.5 us, call 2). Queued, each multiprocessor's warps
# drain their own share first whatever the placement. Expected if that is the story: 2-4 rows on the same 6 near
# 43-45 us, routed apart and the round even. Risks: an atomic before each warp's first unit, and ptxas' spills in the
# looped 8-row gate/up kernels (the even one 20/32 -> 44/84 bytes, the adaptive 68/136 -> 60/244).
# PLUMB_EXPERTS_LOOP16=1 (off unless set) also loops the 16-row launch of a pass split by size, so 16 rows on the
# same 6 run their 384 blocks' work queued in a grid capped at 396 blocks instead of 640 unlooped (1.62 waves).
# Build here, from main: git checkout -b next-experts-sm-queues && git apply --index
# docs/receipts/data/2026-12-02-session28/next/experts-sm-queues.patch && git commit -m "..." && git checkout main,
# then scripts/device-bundle-ab next-experts-sm-queues -- test_dsv4_forward, and remove
# .device/bin/test_dsv4_forward.gz (main's).
set -uo pipefail
source tools/device/call_start.sh
E=plumb-next-experts-sm-queues Q=PLUMB_EXPERTS_SM_QUEUES V=PLUMB_EXPERTS_EVEN_LOOP C=PLUMB_EXPERTS_GRID_CAP
L=PLUMB_EXPERTS_LOOP16
bits_against_main $E $E@$Q=0 $E@$V=0 $E@$L=1 $E@$C=8 $E@$C=8,$Q=0
cuda_checks test_dsv4_forward-next-experts-sm-queues $E fp4_experts_cuda "$C=0" "$C=8"  # at 8 every launch queues
classes "$Q=1 $V=1" "$Q=1 $V=1 $L=1" "$Q=0 $V=1" "$Q=0 $V=0"  # the last: main's code paths
ncu_spread 2 2 "$Q=1 $V=1" "$Q=0 $V=1"  # the per-multiprocessor spread of the 2-row passes, queued and dealt
STOP_AFTER=$((515 - SECONDS)) OUT=$R bash tools/device/alternate.sh $E $E@$Q=0,$V=0 > /dev/null
cp $R/medians.txt $OUT/; cat $R/medians.txt
tar -czf $OUT/call.tgz -C $R .
echo "t=$SECONDS"
