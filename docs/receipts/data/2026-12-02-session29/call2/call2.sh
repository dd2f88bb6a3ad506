#!/usr/bin/env bash
# Session 29 call 2 (carry [".device"], timeout_s 600). Branch next-sm-queues2 (session 28's queued experts plus
# db9506d and 413dcaf): call 1 lost with the queues (2 rows on the same 6 experts 49.0 -> 59.2 us) and its ncu put the
# cost in the queues' latencies: each claim read the home counter and then took it (two load latencies before a
# unit), and every warp's last fetch scanned the other queues 32 a round (five rounds, a latency each). Here a claim
# is the atomic alone, the scan one round of loads, and PLUMB_EXPERTS_QUEUE_PREFETCH (on unless 0) keeps the next
# home claim in flight while a unit is served. Same items, same arithmetic: the bits must stay cf824e82009a0f99, with
# the prefetch off and with the grid capped at 8 blocks (every launch queued, most units stolen). Built here with
# cmake --build build-gpu on the branch, stripped and zipped into .device/bin by hand; .device/bin/plumb is main
# ad918f1 (the same kernels as main's head).
set -uo pipefail
source tools/device/call_start.sh
E=plumb-next-sm-queues2 Q=PLUMB_EXPERTS_SM_QUEUES V=PLUMB_EXPERTS_EVEN_LOOP C=PLUMB_EXPERTS_GRID_CAP
P=PLUMB_EXPERTS_QUEUE_PREFETCH
bits_against_main $E $E@$P=0 $E@$Q=0 $E@$C=8 $E@$C=8,$P=0
cuda_checks test_dsv4_forward-next-sm-queues2 $E fp4_experts_cuda "$C=0" "$C=8"  # at 8 every launch queues
classes - "$P=0" "$Q=0 $V=1" "$Q=0 $V=0"  # the last: main's code paths
ncu_spread 2 2 - "$P=0" "$Q=0 $V=1"
STOP_AFTER=$((525 - SECONDS)) OUT=$R bash tools/device/alternate.sh $E $E@$Q=0,$V=0 > /dev/null
cp $R/medians.txt $OUT/; cat $R/medians.txt
tar -czf $OUT/call.tgz -C $R .
echo "t=$SECONDS"
