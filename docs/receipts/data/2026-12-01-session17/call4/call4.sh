#!/usr/bin/env bash
# Session 17 call 4 (carry [".device"], timeout_s 420): next-pv-lean at b820c29 against main (09dcd03; kernels as
# f68ba9e's): the lean chunk start and exps in the 32-key (wide) P.V only; the one-wave kernel as main's. Bits at
# chunk 1 and 16 (expect cf824e82009a0f99), the contract, the CUDA tests, the round at 1, 4 and 16 rows and 4 slots
# alternating three times, the layers at 64 and 256 rows twice, ncu of the P.V at 1, 4 and 16 rows.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
L=plumb-next-pv-lean
VARIANTS="plumb $L"
CONTRACTS="$L" LIGHT=1 KERNELS=0 AB="$VARIANTS" bash tools/device/ab-builds.sh
echo "t=$SECONDS"
R=$(mktemp -d); I=$(cat .device/ids.txt)
{ for c in 1 16; do for k in 1 2; do
    timeout -k 5 60 $B/$L logits --backend cuda --ids "$I" --chunk $c --out $R/l.bin --mtp-out $R/l.mtp >/dev/null 2>&1
    echo "$L chunk $c repeat $k: $(cat $R/l.bin $R/l.mtp | sha256sum | cut -c1-16)"
  done; done
  echo "next-pv-lean CUDA tests: $(timeout -k 5 150 $B/test_dsv4_forward-next-pv-lean --gtest_filter='*cuda*:Cuda*' 2>&1 | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')"
} | tee $R/tests.txt
echo "t=$SECONDS"
for rep in 1 2 3; do for v in $VARIANTS; do
  timeout -k 5 60 $B/$v synth --only layers --rows 1 4 16 --repeats 10 > $R/layers-$v-$rep.txt 2>&1
  echo "$v rep $rep: $(grep -E '^43-layer round +1 slot, as drawn' $R/layers-$v-$rep.txt | awk '{printf "%s ", $(NF-3)}')| 4 slots $(grep -E '^43-layer round +4 slots, as drawn' $R/layers-$v-$rep.txt | awk '{print $(NF-3)}')"
done; echo "t=$SECONDS"; done | tee $R/rounds.txt
for rep in 1 2; do for v in $VARIANTS; do
  timeout -k 5 100 $B/$v synth --only layers --rows 64 256 --repeats 5 > $R/prefill-$v-$rep.txt 2>&1
  echo "$v rep $rep: $(grep -E '^43-layer round +1 slot, as drawn' $R/prefill-$v-$rep.txt | awk '{printf "%s ", $(NF-3)}')"
done; done | tee $R/prefill.txt
echo "t=$SECONDS"
NCU="/usr/local/cuda/bin/ncu --clock-control none --metrics gpu__time_duration.sum"
for run in "plumb 1" "$L 1" "plumb 4" "$L 4" "plumb 16" "$L 16"; do
  read -r v rows <<< "$run"
  PLUMB_CUDA_GRAPHS=0 timeout -k 5 60 $NCU --kernel-name regex:attention_pv --launch-count 4 \
    $B/$v synth --only layers --rows $rows --repeats 1 --config .device/csa-config.json > $R/ncu-$v-$rows.txt 2>&1
  echo "-- $v, $rows rows"; grep -E "^  [^ ]|gpu__time_duration" $R/ncu-$v-$rows.txt | sed -E 's/\(anonymous namespace\):://g; s/plumb::cuda::(ops::)?//g; s/\(.*\) \(/ (/; s/, Context.*//; s/ +/ /g' | paste - - | cut -c1-140
done | tee $R/ncu-summary.txt
rm -f $R/l.bin $R/l.mtp; tar -czf $OUT/call4-extra.tgz -C $R .; cp $R/tests.txt $R/rounds.txt $R/prefill.txt $R/ncu-summary.txt $OUT/
echo "t=$SECONDS"
