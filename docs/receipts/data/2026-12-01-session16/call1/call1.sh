#!/usr/bin/env bash
# Prepared at the end of session 15 for the next session's first call (carry [".device"], timeout_s 480; about 6
# minutes). Build it here first, main checked out and the tree clean:
#   git branch -f base-51188c1 51188c1     # the session's start: no lanes, no row warps
#   scripts/device-bundle-ab base-51188c1 -- test_dsv4_forward
#   gzip .device/bin/plumb-* .device/bin/test_dsv4_forward*
# Then: bash docs/receipts/data/2026-12-01-session15/next-call1.sh
# What it answers:
#   - main's code after the last GPU run (the lane checker, LaneOrder: the same graph edges by the tape's tests;
#     OnLane and a join at each round's start, a no-op in a normal round) on the GPU: bits at chunk 1 and 16 (expect cf824e82009a0f99) against the session 15 start and with lanes off, three
#     more runs each, the contract and the CUDA tests;
#   - lanes and row warps at prefill sizes, which session 15 never timed (its rounds stopped at 16 rows): the layers
#     at 64 and 256 rows of one slot, main against PLUMB_CUDA_LANES=0, PLUMB_DENSE_ROW_WARPS=0 and the session's start,
#     alternating twice.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
VARIANTS="plumb plumb@PLUMB_CUDA_LANES=0 plumb@PLUMB_DENSE_ROW_WARPS=0 plumb-base-51188c1"
CONTRACTS="none" LIGHT=1 AB="$VARIANTS" bash tools/device/ab-builds.sh
R=$(mktemp -d); I=$(cat .device/ids.txt)
{ echo "main contract: $(timeout -k 5 150 $B/plumb contract --backend cuda 2>&1 | tail -1)"
  echo "main CUDA tests: $(timeout -k 5 120 $B/test_dsv4_forward --gtest_filter='*cuda*:Cuda*' 2>&1 | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')"
  for c in 1 16; do for k in 1 2 3; do
    timeout -k 5 60 $B/plumb logits --backend cuda --ids "$I" --chunk $c --out $R/l.bin --mtp-out $R/l.mtp >/dev/null 2>&1
    echo "main chunk $c repeat $k: $(cat $R/l.bin $R/l.mtp | sha256sum | cut -c1-16)"
  done; done
} | tee $R/tests.txt
echo "t=$SECONDS"
cmd() { local e=""; [[ $1 == *@* ]] && e=${1#*@}; echo "env ${e//,/ } $B/${1%%@*}"; }
for rep in 1 2; do for v in $VARIANTS; do t=${v//[@=,]/_}
  timeout -k 5 100 $(cmd $v) synth --only layers --rows 64 256 --repeats 5 > $R/prefill-$t-$rep.txt 2>&1
  echo "$v rep $rep: $(grep -E '^43-layer round +1 slot, as drawn' $R/prefill-$t-$rep.txt | awk '{printf "%s ", $(NF-3)}')"
done; done | tee $R/prefill.txt
tar -czf $OUT/next-call1-extra.tgz -C $R .; cp $R/tests.txt $R/prefill.txt $OUT/
echo "t=$SECONDS"
# Session 16 addition: where the one-row P.V kernel of a CSA/4 layer spends its time (its 26.7 us is the largest
# attention kernel at one row, and staging its keys in shared memory lost in session 13): ncu's full set with SASS
# stall samples, and the one-row window-only layer's kernels (csv) for the fusion leads.
NCU=/usr/local/cuda/bin/ncu
PLUMB_CUDA_GRAPHS=0 timeout -k 5 150 $NCU --clock-control none --set full --import-source no --kernel-name regex:'attention_pv' \
  --launch-count 1 -o $R/pv $B/plumb synth --only layers --rows 1 --repeats 1 --config .device/csa-config.json > $R/pv.log 2>&1 || tail -3 $R/pv.log
$NCU -i $R/pv.ncu-rep --page details > $R/pv-details.txt 2>&1
$NCU -i $R/pv.ncu-rep --page source --print-source sass --csv 2>/dev/null | gzip > $OUT/pv-sass.csv.gz
grep -E "Duration|Registers|Achieved Occupancy|Theoretical Occupancy|Warp Cycles Per Issued|Issue Slots Busy|Memory Throughput|L1/TEX Hit|L2 Hit|Stall|Dynamic Shared|Block Limit" $R/pv-details.txt | head -40 | tee $OUT/pv-summary.txt
gzip -c $R/pv-details.txt > $OUT/pv-details.txt.gz
echo "t=$SECONDS"
