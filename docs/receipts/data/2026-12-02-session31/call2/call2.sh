#!/usr/bin/env bash
# Session 31 call 2 (carry [".device"], timeout_s 600). Branch next-loop16 (main bef5afa + PLUMB_EXPERTS_LOOP16): the
# 16-row pass kernels looped under the default item loop (1 both passes, 2 the down pass only, 0 neither, as main),
# so their grid is capped at the resident blocks and its first turn dealt from the end with pairs apart. Why: at 16
# rows on the same 6 the unlooped gate/up launch runs 640 blocks for 384 busy in 1.62 waves (33.7 us, session 27 call
# 2) and the target 1.4x is 57.7 us against 66.0. Risk: the looped 16-row gate/up kernel spills 96/188 bytes (36/100
# unlooped). Built from main: scripts/device-bundle-ab next-loop16 -- test_dsv4_forward; tools/device/slim_tree.sh out
# before the call, back after.
set -uo pipefail
source tools/device/call_start.sh
E=plumb-next-loop16 L=PLUMB_EXPERTS_LOOP16 C=PLUMB_EXPERTS_GRID_CAP
bits_against_main $E $E@$L=0 $E@$L=2 $E@$C=8
cuda_checks test_dsv4_forward-next-loop16 $E fp4_experts_cuda "-" "$C=8"  # at 8 every launch loops
classes "$L=1" "$L=2" "$L=0"
ncu_spread 16 4 "$L=1" "$L=2" "$L=0"
STOP_AFTER=$((525 - SECONDS)) OUT=$R bash tools/device/alternate.sh $E $E@$L=0 > /dev/null
cp $R/medians.txt $OUT/; cat $R/medians.txt
tar -czf $OUT/call.tgz -C $R .
echo "t=$SECONDS"
