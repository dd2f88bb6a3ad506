#!/usr/bin/env bash
# Session 10 call 5: main after the merge (c3a8532: the router by counting, experts at 2048 K a split) against the
# main this session started from (plumb-old, f2d3a67 = d12708e's code), and one more experiment (gate/up in one split).
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin; R=$(mktemp -d)
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
I=$(cat .device/ids.txt); V="plumb-old plumb plumb-next-experts-split4096"
for v in $V; do for c in 1 16; do
  timeout -k 5 60 $B/$v logits --backend cuda --ids "$I" --chunk $c --out /tmp/$v-$c.bin --mtp-out /tmp/$v-$c.mtp >/dev/null 2>&1 || echo "$v chunk $c failed"
done; done
{ for v in plumb plumb-next-experts-split4096; do for c in 1 16; do
    cmp -s /tmp/plumb-old-$c.bin /tmp/$v-$c.bin && cmp -s /tmp/plumb-old-$c.mtp /tmp/$v-$c.mtp && echo "$v chunk $c: bit-identical to plumb-old" || echo "$v chunk $c: DIFFERS from plumb-old"
  done; done
  for c in 1 16; do echo "main chunk $c sha256: $(cat /tmp/plumb-$c.bin /tmp/plumb-$c.mtp | sha256sum | cut -c1-16)"; done
  echo "main contract: $(timeout -k 5 150 $B/plumb contract --backend cuda 2>&1 | tail -1)"
  echo "main CUDA tests: $(timeout -k 5 120 $B/test_dsv4_forward --gtest_filter='*cuda*:Cuda*' 2>&1 | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')"
} | tee $R/checks.txt
echo "t=$SECONDS"
for cfg in window csa; do  # every kernel of one layer alone (ncu), 1 row, main
  PLUMB_CUDA_GRAPHS=0 timeout -k 5 60 /usr/local/cuda/bin/ncu --clock-control none --launch-count 130 --csv --metrics gpu__time_duration.sum \
    $B/plumb synth --only layers --rows 1 --repeats 1 --config .device/$cfg-config.json 2>/dev/null | gzip > $R/ncu-plumb-$cfg.csv.gz
done
echo "t=$SECONDS"
for v in plumb-old plumb; do
  timeout -k 5 90 $B/$v synth --only kernels --rows 1 2 4 8 16 --repeats 20 --json $R/kernels-$v.json > $R/kernels-$v.txt 2>&1
  echo "== $v"; grep -E "^experts|^fp8 rows +wq_b" $R/kernels-$v.txt | grep -E " (1|16) "
done
echo "t=$SECONDS"
for rep in 1 2; do for v in plumb-old plumb plumb-next-experts-split4096; do
  timeout -k 5 60 $B/$v synth --only layers --rows 1 16 --repeats 10 --json $R/layers-$v-$rep.json > $R/layers-$v-$rep.txt 2>&1
  echo "$v rep $rep:"; grep -E "^43" $R/layers-$v-$rep.txt
done; done
tar -czf $OUT/call5.tgz -C $R .; cp $R/checks.txt $OUT/
echo "t=$SECONDS"
