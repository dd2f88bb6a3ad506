#!/usr/bin/env bash
# Session 32 call 3 (carry [".device"], timeout_s 480): main 5295ee8, pairs apart (P) and the deal from the end (D)
# merged without the even loop, as built (scripts/device-bundle-ab -- test_dsv4_forward from main). Checks the merged
# build's bits (the fingerprint cf824e82009a0f99 expected), the CUDA tests and the experts' contract entry with the
# resident cap and with 8 blocks, the classes on and off, then alternates the round against P=0 D=0 until t=400 s.
set -uo pipefail
source tools/device/call_start.sh
E=plumb P=PLUMB_EXPERTS_PAIRS_APART D=PLUMB_EXPERTS_DEAL_FROM_END C=PLUMB_EXPERTS_GRID_CAP
bits_against_main $E@$P=0,$D=0 $E@$C=8
cuda_checks test_dsv4_forward $E fp4_experts_cuda "-" "$C=8"
classes "-" "$P=0 $D=0"
STOP_AFTER=$((400 - SECONDS)) OUT=$R bash tools/device/alternate.sh $E $E@$P=0,$D=0 > /dev/null
cp $R/medians.txt $OUT/; cat $R/medians.txt
tar -czf $OUT/call.tgz -C $R .
echo "t=$SECONDS"
