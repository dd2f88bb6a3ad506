#!/usr/bin/env bash
# Session 30 call 3 (carry [".device"], timeout_s 190, the session's last device seconds): which warp slots share a
# scheduler (slot_schedulers.cu), and branch next-pairs-apart (next-deal-from-end plus a K-split pair on warps i and
# i + 2, PLUMB_EXPERTS_PAIRS_APART, P): the 2-row classes and ncu's per-scheduler spread with P on and off, and a
# 396-block grid beside them; then the bits and the experts' contract entry. No round: too few seconds left.
set -uo pipefail
source tools/device/call_start.sh
E=plumb-next-pairs-apart P=PLUMB_EXPERTS_PAIRS_APART C=PLUMB_EXPERTS_GRID_CAP
$B/slot_schedulers | tee $R/slot_schedulers.txt $OUT/slot_schedulers.txt
classes "$P=1" "$P=0"
NCU_EXTRA=smsp__inst_executed.max,smsp__inst_executed.avg,smsp__inst_executed.min ncu_spread 2 2 "$P=1" "$P=0" "$P=0 $C=396"
bits_against_main $E $E@$P=0 $E@$C=8 $E@$C=8,$P=0
for v in "$C=8" "$C=8 $P=0"; do
  echo "$v $(env $v timeout -k 5 60 $B/$E contract --backend cuda --only fp4_experts_cuda 2>&1 | grep -E '^fp4_experts_cuda')"
done | tee $R/tests.txt $OUT/tests.txt
tar -czf $OUT/call.tgz -C $R .
echo "t=$SECONDS"
