#!/usr/bin/env bash
# Session 16 call 2 (carry [".device"], timeout_s 560): main (910b972) against next-fused-rope (89b3dd4), built here
# with `scripts/device-bundle-ab next-fused-rope -- test_dsv4_forward`, not yet run on a GPU. Same bits by design:
# the q rope inside the head norm kernel and the output's inverse rope in the P.V kernel's epilogue, two launches
# fewer on each layer's one-row critical path (PLUMB_FUSED_ROPE=0 runs the two ops each). Bits at chunk 1 and 16
# for every variant and three more times for the branch, the branch's contract (26 kernels now) and CUDA tests
# (CudaFusedRope among them), the round at 1, 4, 8 and 16 rows and 4 slots with the builds alternating twice, and
# ncu of the fused kernels against the pairs they replace at 1 and 16 rows (CSA/4 layer).
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
S=plumb-next-fused-rope
VARIANTS="plumb $S $S@PLUMB_FUSED_ROPE=0"
CONTRACTS="$S" LIGHT=1 AB="$VARIANTS" bash tools/device/ab-builds.sh
R=$(mktemp -d); I=$(cat .device/ids.txt)
{ for c in 1 16; do for k in 1 2 3; do
    timeout -k 5 60 $B/$S logits --backend cuda --ids "$I" --chunk $c --out $R/l.bin --mtp-out $R/l.mtp >/dev/null 2>&1
    echo "$S chunk $c repeat $k: $(cat $R/l.bin $R/l.mtp | sha256sum | cut -c1-16)"
  done; done
  echo "next-fused-rope CUDA tests: $(timeout -k 5 150 $B/test_dsv4_forward-next-fused-rope --gtest_filter='*cuda*:Cuda*' 2>&1 | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')"
  timeout -k 5 150 $B/$S contract --backend cuda 2>&1 | grep -A6 -E '^(head_rms_norm_rope|attention_rope) '
} | tee $R/tests.txt
echo "t=$SECONDS"
cmd() { local e=""; [[ $1 == *@* ]] && e=${1#*@}; echo "env ${e//,/ } $B/${1%%@*}"; }
for rep in 1 2; do for v in $VARIANTS; do t=${v//[@=,]/_}
  timeout -k 5 60 $(cmd $v) synth --only layers --rows 1 4 8 16 --repeats 10 > $R/layers-$t-$rep.txt 2>&1
  echo "$v rep $rep: $(grep -E '^43-layer round +1 slot, as drawn' $R/layers-$t-$rep.txt | awk '{printf "%s ", $(NF-3)}')| 4 slots $(grep -E '^43-layer round +4 slots, as drawn' $R/layers-$t-$rep.txt | awk '{print $(NF-3)}')"
done; done | tee $R/rounds.txt
echo "t=$SECONDS"
NCU="/usr/local/cuda/bin/ncu --clock-control none --metrics gpu__time_duration.sum"
for run in "plumb 1" "$S 1" "plumb 16" "$S 16"; do
  v=${run% *}; rows=${run#* }
  env PLUMB_CUDA_GRAPHS=0 timeout -k 5 90 $NCU --kernel-name regex:'head_rms_norm|rope_kernel|attention_pv' --launch-count 12 \
    $B/$v synth --only layers --rows $rows --repeats 1 --config .device/csa-config.json > $R/ncu-$v-$rows.txt 2>&1
  echo "-- $v, $rows rows"; grep -E "^  [^ ]|gpu__time_duration" $R/ncu-$v-$rows.txt | sed -E 's/\(anonymous namespace\):://g; s/plumb::cuda::(ops::)?//g; s/\(.*\) \(/ (/; s/, Context.*//; s/ +/ /g' | paste - - | cut -c1-140
done | tee $R/ncu-summary.txt
tar -czf $OUT/call2-extra.tgz -C $R .; cp $R/tests.txt $R/rounds.txt $R/ncu-summary.txt $OUT/
echo "t=$SECONDS"
