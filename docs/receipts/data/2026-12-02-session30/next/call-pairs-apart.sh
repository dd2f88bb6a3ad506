#!/usr/bin/env bash
# Prepared in session 30 for the next one (carry [".device"], timeout_s 600). Branch next-pairs-apart
# (experts-pairs-apart.patch here, on main af34003 or later): session 29's first turn dealt from the last block
# (PLUMB_EXPERTS_DEAL_FROM_END, D) with the even kernels of 2-4 rows looped (PLUMB_EXPERTS_EVEN_LOOP, V), plus a
# K-split pair on warps i and i + 2 instead of 2i and 2i + 1 (PLUMB_EXPERTS_PAIRS_APART, P). Same bits.
# Why (session 30 calls 1-2): at 2 rows on the same 6 the gate/up pass's busiest scheduler runs 26.8 K instructions
# against 19.7 K on average (1.36x) however the first turn is dealt, and a 396-block grid (every slot busy) runs the
# pass in 24.9 us against 29.6. Call 2's probe put a 4-warp block in slots 4r .. 4r + 3 (r its place on the
# multiprocessor) and its warp w on scheduler (w + r) % 4 as far as its timings tell; on that map, dealt from the
# end, neighbouring pairs leave some scheduler 4 busy warps and pairs apart 3 (the host test). slot_schedulers.cu
# checks the map directly first. Expected if the story holds: gate/up at 2 rows near 25 us under ncu, its per-scheduler
# max near the average; 2-4 rows on the same 6 near 44-45 us; one row and routed apart unchanged. Risk: ptxas spills
# more in the 2-row gate/up kernel (48/52 bytes against 20/32 on main, tools/kernel_sizes.py).
# Build here, from main: git checkout -b next-pairs-apart && git apply --index
# docs/receipts/data/2026-12-02-session30/next/experts-pairs-apart.patch && git commit -m "..." && git checkout main;
# scripts/device-bundle-ab next-pairs-apart -- test_dsv4_forward (from main: .device/bin/plumb is the checkout's build);
# rm .device/bin/test_dsv4_forward.gz (main's);
# nvcc -O2 -arch=sm_90a -o .device/bin/slot_schedulers docs/receipts/data/2026-12-02-session30/next/slot_schedulers.cu.
# Carry: .device (about 33 MB) and the tree (35 MB tracked) pass 64 MiB only with the largest receipt archives out
# of the working tree for the call: tools/device/slim_tree.sh out, then back after it.
set -uo pipefail
source tools/device/call_start.sh
E=plumb-next-pairs-apart P=PLUMB_EXPERTS_PAIRS_APART D=PLUMB_EXPERTS_DEAL_FROM_END V=PLUMB_EXPERTS_EVEN_LOOP
C=PLUMB_EXPERTS_GRID_CAP
$B/slot_schedulers | tee $R/slot_schedulers.txt $OUT/slot_schedulers.txt
bits_against_main $E $E@$P=0 $E@$C=8 $E@$C=8,$P=0
cuda_checks test_dsv4_forward-next-pairs-apart $E fp4_experts_cuda "$C=0" "$C=8"  # at 8 every launch loops
classes "$P=1" "$P=0" "$P=0 $D=0 $V=0"  # the last: main's code paths
NCU_EXTRA=smsp__inst_executed.max,smsp__inst_executed.avg,smsp__inst_executed.min \
  ncu_spread 2 2 "$P=1" "$P=0" "$P=0 $C=396"
STOP_AFTER=$((525 - SECONDS)) OUT=$R bash tools/device/alternate.sh $E $E@$P=0,$D=0,$V=0 > /dev/null
cp $R/medians.txt $OUT/; cat $R/medians.txt
tar -czf $OUT/call.tgz -C $R .
echo "t=$SECONDS"
