#!/usr/bin/env bash
# Session 14 call 3 (carry [".device"], timeout_s 580). Built here:
#   scripts/device-bundle-ab next-l2-prefetch -- test_dsv4_forward; gzip .device/bin/plumb-* .device/bin/test_dsv4_forward*
# A = main 3985914. next-l2-prefetch (27ec173): call 2's prefetch points, now one prefetch instruction per 128-byte
# line (PLUMB_L2_PREFETCH_MODE=1, default; 2 with evict_last; 0 call 2's bulk prefetches), in the prefetch kernel
# and in the experts' gate/up pass (the down weights). Then main's contract and CUDA tests, the torch peer, and
# main's synth with JSON for the receipt.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
R=$(mktemp -d)
{ echo "main contract: $(timeout -k 5 150 $B/plumb contract --backend cuda 2>&1 | tail -1)"
  echo "main CUDA tests: $(timeout -k 5 120 $B/test_dsv4_forward --gtest_filter='*cuda*:Cuda*' 2>&1 | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')"
  echo "next-l2-prefetch CUDA tests: $(timeout -k 5 120 $B/test_dsv4_forward-next-l2-prefetch --gtest_filter='*cuda*:Cuda*' 2>&1 | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')"
} | tee $R/tests.txt
echo "t=$SECONDS"
P=plumb-next-l2-prefetch
LAST="$P@PLUMB_L2_PREFETCH_MODE=2"
DENSE="$P@PLUMB_EXPERTS_DOWN_PREFETCH_MB=0"
DOWN="$P@PLUMB_L2_PREFETCH=0"
CONTRACTS="$P" LIGHT=1 SETTINGS_KERNELS=1 AB="plumb $P $LAST $DENSE $DOWN" bash tools/device/ab-builds.sh
cmd() { local e=""; [[ $1 == *@* ]] && e=${1#*@}; echo "env ${e//,/ } $B/${1%%@*}"; }
for rep in 1 2; do for v in plumb "$P" "$LAST"; do
  t=${v//[@=,]/_}
  timeout -k 5 60 $(cmd $v) synth --only layers --rows 1 4 8 16 --repeats 10 > $R/layers-$t-$rep.txt 2>&1
  echo "$v rep $rep: $(grep -E '^43-layer round +1 slot, as drawn' $R/layers-$t-$rep.txt | awk '{printf "%s ", $(NF-3)}')| 4 slots $(grep -E '^43-layer round +4 slots, as drawn' $R/layers-$t-$rep.txt | awk '{print $(NF-3)}')"
done; done | tee $R/rounds.txt
echo "t=$SECONDS"
timeout -k 5 90 python3 tools/device/synth_peer.py $R/peer.json > $R/peer.txt 2>&1; tail -30 $R/peer.txt
echo "t=$SECONDS"
timeout -k 5 120 $B/plumb synth --rows 1 2 4 8 16 --json $R/synth-main.json > $R/synth-main.txt 2>&1; grep -vE "^(layers|kernel classes):" $R/synth-main.txt | tail -60
tar -czf $OUT/call3-extra.tgz -C $R .; cp $R/tests.txt $R/rounds.txt $R/peer.txt $R/synth-main.json $OUT/ 2>/dev/null
echo "t=$SECONDS"
