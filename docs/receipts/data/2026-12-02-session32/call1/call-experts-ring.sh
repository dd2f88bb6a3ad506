#!/usr/bin/env bash
# Prepared in session 31 for the next one (carry [".device"], timeout_s 600). Branch next-experts-ring: main with
# experts-ring.patch here applied (git checkout -b next-experts-ring && git apply --index
# docs/receipts/data/2026-12-02-session31/next/experts-ring.patch && git commit -m "..." && git checkout main), then
# from main: scripts/device-bundle-ab next-experts-ring -- test_dsv4_forward; rm .device/bin/test_dsv4_forward.gz
# (main's); tools/device/slim_tree.sh out before the call, back after.
# What: PLUMB_EXPERTS_RING (X, on): each warp of the experts' pass kernels streams its weight codes and block scales
# through its own ring of shared-memory steps (5 a matrix for gate/up, 10 for down; 45-48 KB a block, four blocks a
# multiprocessor as before) that lane 0 fills with cp.async.bulk on an mbarrier per step; the lanes read the same
# bytes from shared memory. Same bits by construction. Built here: the X=0 kernels are main's to the instruction
# (tools/kernel_sizes.py), the ring kernels 120-128 registers, spills no more than main's.
# Why: the one-row passes reach 45-58% of the copy bandwidth with the ALU pipe half busy, and neither more warps (the
# down pass at 29% occupancy against 17%, session 25) nor deeper register rings (sessions 12, 20-21) moved them:
# what stays untried is bytes in flight that bypass the registers and the L1's miss path. Expected if that is the
# limit: the one-row gate/up pass 23 -> 15-18 us and down 15 -> 9-11 under ncu (dram__ throughput up), experts at one
# row 41 -> 30-34 us. If it is not, the ncu lines say so at no cost to main.
# First a correctness gate: the bits, the CUDA tests and the experts' contract entry with X on, also under the old
# codes layout (PLUMB_EXPERTS_COALESCED=0: other lane offsets in the same steps) and a grid cap of 8.
set -uo pipefail
source tools/device/call_start.sh
E=plumb-next-experts-ring X=PLUMB_EXPERTS_RING C=PLUMB_EXPERTS_GRID_CAP L=PLUMB_EXPERTS_COALESCED
bits_against_main $E $E@$X=0 $E@$C=8 $E@$L=0
cuda_checks test_dsv4_forward-next-experts-ring $E fp4_experts_cuda "-" "$C=8" "$L=0"
classes "-" "$X=0"
NCU_EXTRA=dram__bytes_read.sum.per_second,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active \
  ncu_spread 1 2 "-" "$X=0"
NCU_EXTRA=dram__bytes_read.sum.per_second ncu_spread 16 4 "-" "$X=0"
STOP_AFTER=$((525 - SECONDS)) OUT=$R bash tools/device/alternate.sh $E $E@$X=0 > /dev/null
cp $R/medians.txt $OUT/; cat $R/medians.txt
tar -czf $OUT/call.tgz -C $R .
echo "t=$SECONDS"
