#!/usr/bin/env bash
# Session 15 call 5 (carry [".device"], timeout_s 560): main as merged (row warps for bf16 matrices of up to 256
# features above 4 rows; PLUMB_DENSE_ROW_WARPS=0 turns it off) against the session's starting main (51188c1, as
# plumb-base-51188c1). Bits at chunk 1 and 16, main's contract and CUDA tests, the rounds alternating twice, then
# the torch peer and `plumb synth --json` for issue 12's table.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
VARIANTS="plumb plumb-base-51188c1 plumb@PLUMB_DENSE_ROW_WARPS=0"
CONTRACTS="none" LIGHT=1 AB="$VARIANTS" bash tools/device/ab-builds.sh
R=$(mktemp -d)
{ echo "main contract: $(timeout -k 5 150 $B/plumb contract --backend cuda 2>&1 | tail -1)"
  echo "main CUDA tests: $(timeout -k 5 120 $B/test_dsv4_forward --gtest_filter='*cuda*:Cuda*' 2>&1 | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')"
} | tee $R/tests.txt
echo "t=$SECONDS"
cmd() { local e=""; [[ $1 == *@* ]] && e=${1#*@}; echo "env ${e//,/ } $B/${1%%@*}"; }
for rep in 1 2; do for v in $VARIANTS; do t=${v//[@=,]/_}
  timeout -k 5 60 $(cmd $v) synth --only layers --rows 1 4 8 16 --repeats 10 > $R/layers-$t-$rep.txt 2>&1
  echo "$v rep $rep: $(grep -E '^43-layer round +1 slot, as drawn' $R/layers-$t-$rep.txt | awk '{printf "%s ", $(NF-3)}')| 4 slots $(grep -E '^43-layer round +4 slots, as drawn' $R/layers-$t-$rep.txt | awk '{print $(NF-3)}')"
done; done | tee $R/rounds.txt
echo "t=$SECONDS"
timeout -k 5 90 python3 tools/device/synth_peer.py $R/peer.json > $R/peer.txt 2>&1; tail -12 $R/peer.txt
echo "t=$SECONDS"
timeout -k 5 240 $B/plumb synth --rows 1 2 4 8 16 --json $R/synth-main.json > $R/synth-main.txt 2>&1; tail -30 $R/synth-main.txt
tar -czf $OUT/call5-extra.tgz -C $R .; cp $R/tests.txt $R/rounds.txt $R/peer.txt $R/synth-main.json $OUT/ 2>/dev/null
echo "t=$SECONDS"
