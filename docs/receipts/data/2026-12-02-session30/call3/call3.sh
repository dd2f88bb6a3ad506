#!/usr/bin/env bash
# Session 30 call 3 (carry [".device"], timeout_s 240): which warp slots share a scheduler (slot_schedulers.cu), and
# ncu's per-scheduler spread of the 2-row passes on the same 6 in a 396-block grid (every slot busy), to set beside
# call 2's 528-block figures (plumb-next-turn-rotate, ranks off).
set -uo pipefail
source tools/device/call_start.sh
E=plumb-next-turn-rotate T=PLUMB_EXPERTS_TURN_RANK C=PLUMB_EXPERTS_GRID_CAP
$B/slot_schedulers | tee $R/slot_schedulers.txt $OUT/slot_schedulers.txt
NCU_EXTRA=smsp__inst_executed.max,smsp__inst_executed.avg,smsp__inst_executed.min ncu_spread 2 2 "$C=396 $T=0"
tar -czf $OUT/call.tgz -C $R .
echo "t=$SECONDS"
