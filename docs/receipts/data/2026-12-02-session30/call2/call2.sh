#!/usr/bin/env bash
# Session 30 call 2 (carry [".device"], timeout_s 600): branch next-turn-rotate (next-deal-from-end plus a block's
# first-turn slots turned by a rank, PLUMB_EXPERTS_TURN_RANK=1 %warpid / 4, 2 arrival atomic, 0 none). Call 1 found
# the deal from the end evened the 2-row gate/up pass's instructions across multiprocessors (max 106 K -> 80 K) but not
# its time (29.4 -> 29.5 us), where a 396-block grid ran it in 24.9 (session 29 call 3): the busy warps of a block's
# first slot all sit on schedulers 0-1 if a block's warp w runs on scheduler w % 4. This call checks that mapping
# (warp_slots, and ncu's per-scheduler instructions) and whether turning the slots recovers the 5 us. Same bits.
# Build: scripts/device-bundle-ab next-turn-rotate -- test_dsv4_forward, keep main's plumb only, and
# nvcc -O2 -arch=sm_90a -o .device/bin/warp_slots docs/receipts/data/2026-12-02-session30/call2/warp_slots.cu
set -uo pipefail
source tools/device/call_start.sh
E=plumb-next-turn-rotate T=PLUMB_EXPERTS_TURN_RANK D=PLUMB_EXPERTS_DEAL_FROM_END V=PLUMB_EXPERTS_EVEN_LOOP
C=PLUMB_EXPERTS_GRID_CAP
$B/warp_slots | tee $R/warp_slots.txt $OUT/warp_slots.txt
bits_against_main $E $E@$T=2 $E@$T=0 $E@$C=8 $E@$C=8,$T=2
cuda_checks test_dsv4_forward-next-turn-rotate $E fp4_experts_cuda "$C=8" "$C=8 $T=2"  # at 8 every launch loops
classes "$T=1" "$T=2" "$T=0" "$D=0 $V=0 $T=0"  # the last: main's code paths
NCU_EXTRA=smsp__inst_executed.max,smsp__inst_executed.avg,smsp__inst_executed.min ncu_spread 2 2 "$T=1" "$T=2" "$T=0"
# The round: the faster rank at 2 rows on the same 6 against main's paths.
best=$(for t in 1 2; do awk -v t="$t" '$0 == "PLUMB_EXPERTS_TURN_RANK=" t {on = 1; next} /^PLUMB/ {on = 0}
  on && /same 6/ && $9 == 2 {print $10, t}' $R/classes.txt; done | sort -n | head -1 | cut -d' ' -f2)
echo "rank for the round: ${best:=1}"
STOP_AFTER=$((525 - SECONDS)) OUT=$R bash tools/device/alternate.sh $E@$T=$best $E@$D=0,$V=0,$T=0 > /dev/null
cp $R/medians.txt $OUT/; cat $R/medians.txt
tar -czf $OUT/call.tgz -C $R .
echo "t=$SECONDS"
