#!/usr/bin/env bash
# Session 17 call 6 (carry [".device"], timeout_s 420): next-experts-add (5cb89a0) against main (c5af808, whose kernels
# are d3e3add's): Backend::routed_experts_add, on CUDA the shared expert's add inside the routed experts' combine
# kernel after the lanes' join (PLUMB_FUSED_MOE_ADD=0: combine, then add). Bits at chunk 1 and 16 (expect
# cf824e82009a0f99), the contract (fp4_experts_add new), the CUDA tests (CudaFusedMoeAdd new), the round at 1, 4
# and 16 rows and 4 slots alternating three times, ncu of the MoE tail at 1 row.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
E=plumb-next-experts-add
VARIANTS="plumb $E $E@PLUMB_FUSED_MOE_ADD=0"
CONTRACTS="$E" LIGHT=1 KERNELS=0 AB="$VARIANTS" bash tools/device/ab-builds.sh
echo "t=$SECONDS"
R=$(mktemp -d); I=$(cat .device/ids.txt)
{ for c in 1 16; do for k in 1 2; do
    timeout -k 5 60 $B/$E logits --backend cuda --ids "$I" --chunk $c --out $R/l.bin --mtp-out $R/l.mtp >/dev/null 2>&1
    echo "$E chunk $c repeat $k: $(cat $R/l.bin $R/l.mtp | sha256sum | cut -c1-16)"
  done; done
  echo "next-experts-add CUDA tests: $(timeout -k 5 150 $B/test_dsv4_forward-next-experts-add --gtest_filter='*cuda*:Cuda*' 2>&1 | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')"
  timeout -k 5 100 $B/$E contract --backend cuda --only fp4_experts_add 2>&1 | tail -4
} | tee $R/tests.txt
echo "t=$SECONDS"
cmd() { local e=""; [[ $1 == *@* ]] && e=${1#*@}; echo "env ${e//,/ } $B/${1%%@*}"; }
for rep in 1 2 3; do for v in $VARIANTS; do t=${v//[@=,]/_}
  timeout -k 5 60 $(cmd $v) synth --only layers --rows 1 4 16 --repeats 10 > $R/layers-$t-$rep.txt 2>&1
  echo "$v rep $rep: $(grep -E '^43-layer round +1 slot, as drawn' $R/layers-$t-$rep.txt | awk '{printf "%s ", $(NF-3)}')| 4 slots $(grep -E '^43-layer round +4 slots, as drawn' $R/layers-$t-$rep.txt | awk '{print $(NF-3)}')"
done; echo "t=$SECONDS"; done | tee $R/rounds.txt
NCU="/usr/local/cuda/bin/ncu --clock-control none --metrics gpu__time_duration.sum"
for v in $E $E@PLUMB_FUSED_MOE_ADD=0; do t=${v//[@=,]/_}; e=""; [[ $v == *@* ]] && e=${v#*@}
  env $e PLUMB_CUDA_GRAPHS=0 timeout -k 5 60 $NCU --kernel-name regex:'combine|add_kernel' --launch-count 6 \
    $B/${v%%@*} synth --only layers --rows 1 --repeats 1 --config .device/csa-config.json > $R/ncu-$t.txt 2>&1
  echo "-- $v"; grep -E "^  [^ ]|gpu__time_duration" $R/ncu-$t.txt | sed -E 's/\(anonymous namespace\):://g; s/plumb::cuda::(ops::)?//g; s/\(.*\) \(/ (/; s/, Context.*//; s/ +/ /g' | paste - - | cut -c1-140
done | tee $R/ncu-summary.txt
rm -f $R/l.bin $R/l.mtp; tar -czf $OUT/call6-extra.tgz -C $R .; cp $R/tests.txt $R/rounds.txt $R/ncu-summary.txt $OUT/
echo "t=$SECONDS"
