#!/usr/bin/env bash
# Session 15 call 6 (carry [".device"], timeout_s 480): main (206a067) against next-lanes (8a9bfb6), built here with
# `scripts/device-bundle-ab next-lanes -- test_dsv4_forward`, not yet run on a GPU. Same bits by design: the
# attention sublayer's three chains and the shared expert on lanes a graph may run side by side
# (PLUMB_CUDA_LANES=0 turns it off). Bits at chunk 1 and 16 for every variant, and five more times for next-lanes
# (a race would show as a difference now and then), the branch's contract and CUDA tests, and the round at 1, 4,
# 8 and 16 rows and 4 slots, the builds alternating twice.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
S=plumb-next-lanes
VARIANTS="plumb $S $S@PLUMB_CUDA_LANES=0 $S@PLUMB_CUDA_PDL=0"
CONTRACTS="$S" LIGHT=1 AB="$VARIANTS" bash tools/device/ab-builds.sh
R=$(mktemp -d); I=$(cat .device/ids.txt)
{ for c in 1 16; do for k in 1 2 3 4 5; do
    timeout -k 5 60 $B/$S logits --backend cuda --ids "$I" --chunk $c --out $R/l.bin --mtp-out $R/l.mtp >/dev/null 2>&1
    echo "$S chunk $c repeat $k: $(cat $R/l.bin $R/l.mtp | sha256sum | cut -c1-16)"
  done; done
  echo "next-lanes CUDA tests: $(timeout -k 5 120 $B/test_dsv4_forward-next-lanes --gtest_filter='*cuda*:Cuda*' 2>&1 | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')"
} | tee $R/tests.txt
echo "t=$SECONDS"
cmd() { local e=""; [[ $1 == *@* ]] && e=${1#*@}; echo "env ${e//,/ } $B/${1%%@*}"; }
for rep in 1 2; do for v in $VARIANTS; do t=${v//[@=,]/_}
  timeout -k 5 60 $(cmd $v) synth --only layers --rows 1 4 8 16 --repeats 10 > $R/layers-$t-$rep.txt 2>&1
  echo "$v rep $rep: $(grep -E '^43-layer round +1 slot, as drawn' $R/layers-$t-$rep.txt | awk '{printf "%s ", $(NF-3)}')| 4 slots $(grep -E '^43-layer round +4 slots, as drawn' $R/layers-$t-$rep.txt | awk '{print $(NF-3)}')"
done; done | tee $R/rounds.txt
grep -hE "^(window|CSA|HCA)" $R/layers-plumb-1.txt $R/layers-${S}-1.txt | grep -E " (1|16) " | head -40
tar -czf $OUT/call6-extra.tgz -C $R .; cp $R/tests.txt $R/rounds.txt $OUT/
echo "t=$SECONDS"
