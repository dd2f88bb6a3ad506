#!/usr/bin/env bash
# Session 10 call 4: main (f2d3a67, d12708e's code) against three changes alone and together (next-candidate).
#   next-route-rank: the router's picks by counting under rank_key (same bits);
#   next-experts-split2048: 2048 K a split, one row's passes in one wave (release-width bits change; the tiny
#     model's do not: its widths are one split either way);
#   next-fp8-tile-block: the one-launch linears sum their K splits in shared memory (same bits).
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
I=$(cat .device/ids.txt); V="plumb plumb-next-route-rank plumb-next-experts-split2048 plumb-next-fp8-tile-block plumb-next-candidate"
for v in $V; do for c in 1 16; do
  timeout -k 5 60 $B/$v logits --backend cuda --ids "$I" --chunk $c --out /tmp/$v-$c.bin --mtp-out /tmp/$v-$c.mtp --json /tmp/$v-$c.json >/dev/null 2>&1 || echo "$v chunk $c failed"
done; done
{ for v in $V; do for c in 1 16; do
    cmp -s /tmp/plumb-$c.bin /tmp/$v-$c.bin && cmp -s /tmp/plumb-$c.mtp /tmp/$v-$c.mtp && echo "$v chunk $c: bit-identical to main" || echo "$v chunk $c: DIFFERS from main"
  done; done
  for c in 1 16; do echo "main chunk $c sha256: $(cat /tmp/plumb-$c.bin /tmp/plumb-$c.mtp | sha256sum | cut -c1-16)"; done
  echo "candidate contract: $(timeout -k 5 150 $B/plumb-next-candidate contract --backend cuda 2>&1 | tail -1)"
  echo "candidate, PLUMB_FP8_TILE=0 chunk 1: $(PLUMB_FP8_TILE=0 timeout -k 5 60 $B/plumb-next-candidate logits --backend cuda --ids "$I" --chunk 1 --out /tmp/t0.bin --mtp-out /tmp/t0.mtp >/dev/null 2>&1; cmp -s /tmp/t0.bin /tmp/plumb-1.bin && cmp -s /tmp/t0.mtp /tmp/plumb-1.mtp && echo bit-identical || echo DIFFERS)"
  echo "candidate CUDA tests: $(timeout -k 5 120 $B/test_dsv4_forward-next-candidate --gtest_filter='*cuda*:Cuda*' 2>&1 | grep -E '^\[  (PASSED|FAILED)|tests ran' | tr '\n' ' ')"
} | tee $OUT/checks.txt
echo "t=$SECONDS"
for v in plumb plumb-next-candidate; do  # every kernel of one window layer and one CSA layer, alone (ncu), 1 row
  for cfg in window csa; do
    PLUMB_CUDA_GRAPHS=0 timeout -k 5 60 /usr/local/cuda/bin/ncu --clock-control none --launch-count 130 --csv --metrics gpu__time_duration.sum \
      $B/$v synth --only layers --rows 1 --repeats 1 --config .device/$cfg-config.json 2>/dev/null | gzip > $OUT/ncu-$v-$cfg.csv.gz
  done
done
echo "t=$SECONDS"
for v in plumb plumb-next-candidate; do
  timeout -k 5 90 $B/$v synth --only kernels --rows 1 2 4 8 16 --repeats 20 > $OUT/kernels-$v.txt 2>&1
  echo "== $v"; grep -E "^fp8 rows|^experts" $OUT/kernels-$v.txt | grep -E " (1|8|16) "
done
echo "t=$SECONDS"
for rep in 1 2; do for v in plumb plumb-next-candidate plumb-next-route-rank plumb-next-experts-split2048 plumb-next-fp8-tile-block; do
  [[ $rep == 2 && $v != plumb && $v != plumb-next-candidate ]] && continue
  timeout -k 5 60 $B/$v synth --only layers --rows 1 16 --repeats 10 > $OUT/layers-$v-$rep.txt 2>&1
  echo "$v rep $rep:"; grep -E "^43" $OUT/layers-$v-$rep.txt
done; done
echo "t=$SECONDS"
