#!/usr/bin/env bash
# Prepared in session 29 for the next one (carry [".device"], timeout_s 600). Branch next-deal-from-end
# (experts-deal-from-end.patch here, on main 2f872b2 or later, where its host test finds call 4's maps): a capped
# experts grid deals its first turn from the last block back (PLUMB_EXPERTS_DEAL_FROM_END, D), and the even kernels of
# 2-4 rows loop so their grid is capped and dealt (PLUMB_EXPERTS_EVEN_LOOP, V; session 28's, alone 48.5 -> 48.0 us at
# 2 rows on the same 6). Same items, same arithmetic: the bits must stay cf824e82009a0f99.
# Why (session 29): a 528-block grid's first 132 blocks double up on some multiprocessors while blocks 132-263 fall
# one on each (call 4's maps, five launches), so where a launch's units do not fill the first turn, dealing from
# block 0 gives the busiest multiprocessor 16 busy gate/up warps at 2 rows on the same 6 and dealing from the end 12
# (the host test ExpertsUnits.DealtFromTheEnd... reads the maps); call 3 ran that load at 12 a multiprocessor (a
# 396-block grid) in 24.9 us against 29.6 for the gate/up pass, and 2-8 rows on the same 6 in 44.4-49.7 us against
# 49.7-54.6. Rows routed apart fill the first turn, so unlike a cap the deal should leave them alone. Expected if that
# is the story: 2-4 rows on the same 6 near 44.5-45 us, 8 rows near 49.5, routed apart and one row unchanged, the
# round a little faster at 4 rows and 4 slots. Risk: the last blocks launch last where the previous kernel still holds
# multiprocessors (PDL), so in the round their extra units may start late.
# Build here, from main: git checkout -b next-deal-from-end && git apply --index
# docs/receipts/data/2026-12-02-session29/next/experts-deal-from-end.patch && git commit -m "..." && git checkout main,
# then scripts/device-bundle-ab next-deal-from-end -- test_dsv4_forward, and remove .device/bin/test_dsv4_forward.gz
# (main's) and anything else in .device/bin: with the tree the carry must stay under 64 MiB.
set -uo pipefail
source tools/device/call_start.sh
E=plumb-next-deal-from-end D=PLUMB_EXPERTS_DEAL_FROM_END V=PLUMB_EXPERTS_EVEN_LOOP C=PLUMB_EXPERTS_GRID_CAP
bits_against_main $E $E@$D=0 $E@$V=0 $E@$C=8 $E@$C=8,$D=0
cuda_checks test_dsv4_forward-next-deal-from-end $E fp4_experts_cuda "$C=0" "$C=8"  # at 8 every launch loops
classes - "$D=0" "$V=0" "$D=0 $V=0"  # the last: main's code paths
ncu_spread 2 2 - "$D=0"  # the per-multiprocessor spread of the 2-row passes, dealt from the end and from block 0
STOP_AFTER=$((525 - SECONDS)) OUT=$R bash tools/device/alternate.sh $E $E@$D=0,$V=0 > /dev/null
cp $R/medians.txt $OUT/; cat $R/medians.txt
tar -czf $OUT/call.tgz -C $R .
echo "t=$SECONDS"
