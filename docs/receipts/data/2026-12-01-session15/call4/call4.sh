#!/usr/bin/env bash
# Session 15 call 4 (carry [".device"], timeout_s 540): main against next-dense-row-warps, built here with
# `scripts/device-bundle-ab next-dense-row-warps -- test_dsv4_forward`, not yet run on a GPU. Same bits by design:
# above 4 rows the deep bf16 kernel (router gate, compressors, the indexer's head weights) gives each pass of
# PLUMB_DENSE_ROW_WARPS rows (2, 4, 8; default 4; 0 off) of a feature its own warp. Main's contract gained a
# 64x4096 bf16 dense_linear shape (gate 3 at 1-16 rows) since the last GPU run.
# Bits at chunk 1 and 16 for every variant, main's and the branch's contract, the dense_linear entry at each
# setting, the branch's CUDA tests, ncu of the dense_linear kernels of one CSA/4 layer at 16 and 8 rows, and the
# round at 1, 4, 8, 16 rows and 4 slots, the builds alternating twice.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
S=plumb-next-dense-row-warps; W=PLUMB_DENSE_ROW_WARPS
VARIANTS="plumb $S $S@$W=2 $S@$W=8 $S@$W=0"
CONTRACTS="$S" LIGHT=1 AB="$VARIANTS" bash tools/device/ab-builds.sh
R=$(mktemp -d)
{ echo "main contract: $(timeout -k 5 150 $B/plumb contract --backend cuda 2>&1 | tail -1)"
  for w in 2 8; do
    echo "$S@$W=$w contract dense_linear: $(env $W=$w timeout -k 5 60 $B/$S contract --backend cuda --only dense_linear 2>&1 | grep -E 'dense_linear +gates')"
  done
  echo "next-dense-row-warps CUDA tests: $(timeout -k 5 120 $B/test_dsv4_forward-next-dense-row-warps --gtest_filter='*cuda*:Cuda*' 2>&1 | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')"
} | tee $R/tests.txt
echo "t=$SECONDS"
NCU="/usr/local/cuda/bin/ncu --clock-control none --metrics gpu__time_duration.sum --kernel-name regex:dense_linear --launch-count 7"
for run in "plumb 16" "$S 16" "$S@$W=2 16" "$S@$W=8 16" "plumb 8" "$S 8"; do
  v=${run% *}; rows=${run#* }; t=${v//[@=,]/_}; e=""; [[ $v == *@* ]] && e=${v#*@}
  env $e PLUMB_CUDA_GRAPHS=0 timeout -k 5 90 $NCU $B/${v%%@*} synth --only layers --rows $rows --repeats 1 --config .device/csa-config.json > $R/ncu-$t-$rows.txt 2>&1
  echo "-- $v, $rows rows"; grep -E "^  [^ ]|gpu__time_duration" $R/ncu-$t-$rows.txt | sed -E 's/\(anonymous namespace\):://g; s/plumb::cuda::(ops::)?//g; s/\(.*\) \(/ (/; s/, Context.*//; s/ +/ /g' | paste - - | cut -c1-140
done | tee $R/ncu-summary.txt
echo "t=$SECONDS"
cmd() { local e=""; [[ $1 == *@* ]] && e=${1#*@}; echo "env ${e//,/ } $B/${1%%@*}"; }
for rep in 1 2; do for v in $VARIANTS; do t=${v//[@=,]/_}
  timeout -k 5 60 $(cmd $v) synth --only layers --rows 1 4 8 16 --repeats 10 > $R/layers-$t-$rep.txt 2>&1
  echo "$v rep $rep: $(grep -E '^43-layer round +1 slot, as drawn' $R/layers-$t-$rep.txt | awk '{printf "%s ", $(NF-3)}')| 4 slots $(grep -E '^43-layer round +4 slots, as drawn' $R/layers-$t-$rep.txt | awk '{print $(NF-3)}')"
done; done | tee $R/rounds.txt
tar -czf $OUT/call4-extra.tgz -C $R .; cp $R/tests.txt $R/rounds.txt $R/ncu-summary.txt $OUT/
echo "t=$SECONDS"
