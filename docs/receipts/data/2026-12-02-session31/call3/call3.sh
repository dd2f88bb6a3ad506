#!/usr/bin/env bash
# Session 31 call 3 (carry [".device"], timeout_s 240): main bef5afa (pairs apart merged), issue 12's targets in one
# run: the kernel classes beside the torch peer, and the 43-layer round at 1, 4 and 16 rows with its floor.
set -uo pipefail
source tools/device/call_start.sh
timeout -k 5 80 $B/plumb synth --only kernels > $R/kernels.txt 2>&1
PYTHONUNBUFFERED=1 timeout -k 5 100 python3 tools/device/synth_peer.py $R/synth_peer.json > $R/synth_peer.txt 2>&1
{ grep -E "^(fp8 rows|dense fp8|experts)|copy band" $R/kernels.txt
  grep -E "^torch" $R/synth_peer.txt; } | tee $R/classes.txt $OUT/classes.txt
echo "t=$SECONDS"
timeout -k 5 60 $B/plumb synth --only layers --rows 1 4 16 --repeats 10 > $R/layers.txt 2>&1
grep -E "round|floor" $R/layers.txt | tee $OUT/round.txt
tar -czf $OUT/call.tgz -C $R .
echo "t=$SECONDS"
