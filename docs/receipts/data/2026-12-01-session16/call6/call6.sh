#!/usr/bin/env bash
# Session 16 call 6 (carry [".device"], timeout_s 500): main (64bc842: 8bdc6f6 and receipt data) against next-hc-post-pre
# (f9c323f), built here with `scripts/device-bundle-ab next-hc-post-pre -- test_dsv4_forward`, not yet run on a GPU.
# Same bits by design: a sublayer's hc_post and the next sublayer's hc_pre as one op, on CUDA hc_post and hc_mix in
# one launch (PLUMB_FUSED_HC=0 runs the two ops). Bits at chunk 1 and 16 for every variant and three more times for
# the branch, the branch's contract (28 kernels now) and CUDA tests (CudaFusedHc among them), the round at 1, 2, 4
# and 16 rows and 4 slots with the builds alternating three times, the layers at 64 and 256 rows, and ncu of the
# mHC kernels at 1 and 16 rows (CSA/4 layer) with the switch on and off.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
S=plumb-next-hc-post-pre
VARIANTS="plumb $S $S@PLUMB_FUSED_HC=0"
CONTRACTS="$S" LIGHT=1 AB="$VARIANTS" bash tools/device/ab-builds.sh
R=$(mktemp -d); I=$(cat .device/ids.txt)
{ for c in 1 16; do for k in 1 2 3; do
    timeout -k 5 60 $B/$S logits --backend cuda --ids "$I" --chunk $c --out $R/l.bin --mtp-out $R/l.mtp >/dev/null 2>&1
    echo "$S chunk $c repeat $k: $(cat $R/l.bin $R/l.mtp | sha256sum | cut -c1-16)"
  done; done
  echo "next-hc-post-pre CUDA tests: $(timeout -k 5 150 $B/test_dsv4_forward-next-hc-post-pre --gtest_filter='*cuda*:Cuda*' 2>&1 | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')"
  timeout -k 5 150 $B/$S contract --backend cuda 2>&1 | grep -A6 -E '^mhc_post_pre'
} | tee $R/tests.txt
echo "t=$SECONDS"
cmd() { local e=""; [[ $1 == *@* ]] && e=${1#*@}; echo "env ${e//,/ } $B/${1%%@*}"; }
for rep in 1 2 3; do for v in $VARIANTS; do t=${v//[@=,]/_}
  timeout -k 5 60 $(cmd $v) synth --only layers --rows 1 2 4 16 --repeats 10 > $R/layers-$t-$rep.txt 2>&1
  echo "$v rep $rep: $(grep -E '^43-layer round +1 slot, as drawn' $R/layers-$t-$rep.txt | awk '{printf "%s ", $(NF-3)}')| 4 slots $(grep -E '^43-layer round +4 slots, as drawn' $R/layers-$t-$rep.txt | awk '{print $(NF-3)}')"
done; done | tee $R/rounds.txt
echo "t=$SECONDS"
for v in $VARIANTS; do t=${v//[@=,]/_}
  timeout -k 5 100 $(cmd $v) synth --only layers --rows 64 256 --repeats 5 > $R/prefill-$t.txt 2>&1
  echo "$v: $(grep -E '^43-layer round +1 slot, as drawn' $R/prefill-$t.txt | awk '{printf "%s ", $(NF-3)}')"
done | tee $R/prefill.txt
echo "t=$SECONDS"
NCU="/usr/local/cuda/bin/ncu --clock-control none --metrics gpu__time_duration.sum"
for run in "$S 1" "$S@PLUMB_FUSED_HC=0 1" "$S 16" "$S@PLUMB_FUSED_HC=0 16"; do
  v=${run% *}; rows=${run#* }; t=${v//[@=,]/_}; e=""; [[ $v == *@* ]] && e=${v#*@}
  env $e PLUMB_CUDA_GRAPHS=0 timeout -k 5 90 $NCU --kernel-name regex:'hc_post|hc_mix|hc_pre' --launch-count 8 \
    $B/${v%%@*} synth --only layers --rows $rows --repeats 1 --config .device/csa-config.json > $R/ncu-$t-$rows.txt 2>&1
  echo "-- $v, $rows rows"; grep -E "^  [^ ]|gpu__time_duration" $R/ncu-$t-$rows.txt | sed -E 's/\(anonymous namespace\):://g; s/plumb::cuda::(ops::)?//g; s/\(.*\) \(/ (/; s/, Context.*//; s/ +/ /g' | paste - - | cut -c1-140
done | tee $R/ncu-summary.txt
tar -czf $OUT/call6-extra.tgz -C $R .; cp $R/tests.txt $R/rounds.txt $R/prefill.txt $R/ncu-summary.txt $OUT/
echo "t=$SECONDS"
