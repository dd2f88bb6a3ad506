#!/usr/bin/env bash
# Prepared in session 31 for the next one (carry [".device"], timeout_s 600). Branch next-pairs-apart: main with
# session 31's lost/experts-pairs-apart.patch applied (git checkout -b next-pairs-apart && git apply --index
# docs/receipts/data/2026-12-02-session31/lost/experts-pairs-apart.patch && git commit -m "..." && git checkout main),
# then from main: scripts/device-bundle-ab next-pairs-apart -- test_dsv4_forward; rm .device/bin/test_dsv4_forward.gz
# (main's); tools/device/slim_tree.sh out before the call, back after.
# Why: session 31 call 4 found the three switches together (pairs apart P, deal from the end D, even kernels of 2-4
# rows looped V) 1.37% slower in the round at 4 rows (p 0.011) and 0.96% with 4 slots (p 0.035), as session 30 call 1
# found D with V (+1.07%, +1.43%); V is the common part, and at 2-4 rows routed apart a looped, capped even kernel
# takes its units from the counter. Here V stays off, so the 2-4 row kernels are main's, and P with D act only on
# the launches that loop on main (the adaptive 8-row kernels: 5-8 rows, and the 8-row launch at 9-16 rows). Call 1:
# 8 rows on the same 6 52.9 -> 47.7 us with P (D and V on). Expected: 8 rows on the same 6 near 48 us, 2-4 rows as
# main (48-49), routed apart unchanged, the round at 1 and 4 rows even.
set -uo pipefail
source tools/device/call_start.sh
E=plumb-next-pairs-apart P=PLUMB_EXPERTS_PAIRS_APART D=PLUMB_EXPERTS_DEAL_FROM_END V=PLUMB_EXPERTS_EVEN_LOOP
C=PLUMB_EXPERTS_GRID_CAP
bits_against_main $E@$V=0 $E@$V=0,$C=8
cuda_checks test_dsv4_forward-next-pairs-apart $E fp4_experts_cuda "$V=0" "$V=0 $C=8"  # at 8 every looped launch is capped
classes "$V=0" "$P=0 $D=0 $V=0"
ncu_spread 8 2 "$V=0" "$P=0 $D=0 $V=0"
STOP_AFTER=$((525 - SECONDS)) OUT=$R bash tools/device/alternate.sh $E@$V=0 $E@$P=0,$D=0,$V=0 > /dev/null
cp $R/medians.txt $OUT/; cat $R/medians.txt
tar -czf $OUT/call.tgz -C $R .
echo "t=$SECONDS"
