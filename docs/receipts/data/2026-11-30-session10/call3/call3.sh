#!/usr/bin/env bash
# Session 10 call 3: three same-bits changes alone and together, and one that changes the bits, against main (d12708e).
#   next-route-warp: the router picks in one warp and reuses the gate values (15 us a row by ncu in call 2);
#   next-l2-prefetch: linears prefetch their weights into L2 before the PDL wait;
#   next-rope-prewait: rope's cos/sin table before the PDL wait;
#   next-combined: the three together; next-experts-split2048: 2048 K a split (bits change; the contract must pass);
#   next-combined-split: all four.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
CONTRACTS="plumb-next-combined plumb-next-combined-split" LIGHT=1 \
  AB="plumb plumb-next-route-warp plumb-next-l2-prefetch plumb-next-rope-prewait plumb-next-combined plumb-next-experts-split2048 plumb-next-combined-split" \
  timeout -k 5 420 bash tools/device/ab-builds.sh
echo "t=$SECONDS"
for v in plumb plumb-next-combined-split; do
  PLUMB_CUDA_GRAPHS=0 timeout -k 5 40 /usr/local/cuda/bin/ncu --clock-control none --kernel-name regex:'route|experts_pass|prepare|combine' --launch-count 5 \
    --metrics gpu__time_duration.sum $B/$v synth --only layers --rows 1 --repeats 1 --config .device/window-config.json > $OUT/ncu-$v.txt 2>&1
  echo "-- $v"; grep -E "Context|duration" $OUT/ncu-$v.txt | sed -E 's/\(unnamed[^)]*\)//g; s/ +/ /g' | paste - - | cut -c1-60,150- | head -6
done
echo "t=$SECONDS"
for v in plumb plumb-next-combined; do  # a second round each, alternating (the round moves ~3% between runs)
  timeout -k 5 40 $B/$v synth --only layers --rows 1 16 --repeats 10 > $OUT/layers-$v-2.txt 2>&1
  echo "$v rep 2:"; grep -E "^43" $OUT/layers-$v-2.txt
done
echo "t=$SECONDS"
