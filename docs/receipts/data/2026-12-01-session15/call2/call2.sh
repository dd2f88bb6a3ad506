#!/usr/bin/env bash
# Session 15 call 2 (carry [".device"], timeout_s 540): main (51188c1) against next-attn-heads8 (2b024a1), built here
# with `scripts/device-bundle-ab next-attn-heads8 -- test_dsv4_forward`, not yet run on a GPU. Same bits by design:
#   attention_logits and attention_pv blocks serve 8 heads from 2 rows a launch (each key read from the L2 half as
#   often; PLUMB_ATTENTION_LOGITS_WIDE_ROWS / PLUMB_ATTENTION_PV_WIDE_ROWS: rows from which, 0 never);
#   PLUMB_ATTENTION_PV_NARROW_ROWS=1: at one row, P.V blocks of 2 heads (128 blocks where there were 64).
# Bits at chunk 1 and 16 for every variant, the branch's contract and CUDA tests, the attention entries with the
# narrow P.V, ncu of the attention kernels of one CSA/4 layer at 1 and 16 rows, the round at 1, 4, 8, 16 rows and 4
# slots, the builds alternating twice.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
S=plumb-next-attn-heads8
L=PLUMB_ATTENTION_LOGITS_WIDE_ROWS; P=PLUMB_ATTENTION_PV_WIDE_ROWS; N=PLUMB_ATTENTION_PV_NARROW_ROWS
VARIANTS="plumb $S $S@$L=0 $S@$P=0 $S@$L=8,$P=8 $S@$L=0,$P=0,$N=1"
CONTRACTS="$S" LIGHT=1 AB="$VARIANTS" bash tools/device/ab-builds.sh
R=$(mktemp -d)
{ echo "next-attn-heads8 CUDA tests: $(timeout -k 5 120 $B/test_dsv4_forward-next-attn-heads8 --gtest_filter='*cuda*:Cuda*' 2>&1 | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')"
  for k in window_attention sparse_attention; do
    echo "$S@$N=1 contract $k: $(env $N=1 timeout -k 5 90 $B/$S contract --backend cuda --only $k 2>&1 | grep -E "$k +gates")"
  done
} | tee $R/tests.txt
echo "t=$SECONDS"
cmd() { local e=""; [[ $1 == *@* ]] && e=${1#*@}; echo "env ${e//,/ } $B/${1%%@*}"; }
for run in "plumb 1" "plumb 16" "$S 1" "$S 16" "$S@$L=0,$P=0,$N=1 1"; do v=${run% *}; rows=${run#* }; t=${v//[@=,]/_}
  $(cmd $v) PLUMB_CUDA_GRAPHS=0 timeout -k 5 90 /usr/local/cuda/bin/ncu --clock-control none \
    --kernel-name regex:'attention_pv|attention_logits' --launch-count 4 --metrics gpu__time_duration.sum \
    $B/${v%%@*} synth --only layers --rows $rows --repeats 1 --config .device/csa-config.json > $R/ncu-$t-$rows.txt 2>&1
  echo "-- $v, $rows rows"; grep -E "^  [^ ]|gpu__time_duration" $R/ncu-$t-$rows.txt | sed -E 's/\(anonymous namespace\):://g; s/plumb::cuda::(ops::)?//g; s/\(.*\) \(/ (/; s/, Context.*//; s/ +/ /g' | paste - - | cut -c1-140
done | tee $R/ncu-summary.txt
echo "t=$SECONDS"
for rep in 1 2; do for v in $VARIANTS; do t=${v//[@=,]/_}
  timeout -k 5 60 $(cmd $v) synth --only layers --rows 1 4 8 16 --repeats 10 > $R/layers-$t-$rep.txt 2>&1
  echo "$v rep $rep: $(grep -E '^43-layer round +1 slot, as drawn' $R/layers-$t-$rep.txt | awk '{printf "%s ", $(NF-3)}')| 4 slots $(grep -E '^43-layer round +4 slots, as drawn' $R/layers-$t-$rep.txt | awk '{print $(NF-3)}')"
done; done | tee $R/rounds.txt
tar -czf $OUT/call2-extra.tgz -C $R .; cp $R/tests.txt $R/rounds.txt $R/ncu-summary.txt $OUT/
echo "t=$SECONDS"
