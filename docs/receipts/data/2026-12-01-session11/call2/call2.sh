#!/usr/bin/env bash
# Session 11 call 2: main (b18bda6, with the shared expert's pair) against
#   next-fp8-cluster (ba920a6): the one-launch FP8 linears sum their K splits in a thread block cluster
#     (PLUMB_FP8_CLUSTER=0 turns it off; same bits either way);
#   next-hc-pre-overlap (a0fec0b): hc_pre's post and Sinkhorn on a warp of their own, weights before the wait;
#   next-combo (c160903): both.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin; R=$(mktemp -d)
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
I=$(cat .device/ids.txt); V="plumb plumb-next-fp8-cluster plumb-next-hc-pre-overlap plumb-next-combo"
NCU=/usr/local/cuda/bin/ncu
for v in $V; do for c in 1 16; do
  timeout -k 5 60 $B/$v logits --backend cuda --ids "$I" --chunk $c --out /tmp/$v-$c.bin --mtp-out /tmp/$v-$c.mtp >/dev/null 2>$R/logits-$v-$c.err || echo "$v chunk $c failed: $(tail -2 $R/logits-$v-$c.err)"
done; done
{ for v in $V; do for c in 1 16; do
    cmp -s /tmp/plumb-$c.bin /tmp/$v-$c.bin && cmp -s /tmp/plumb-$c.mtp /tmp/$v-$c.mtp && echo "$v chunk $c: bit-identical to main" || echo "$v chunk $c: DIFFERS from main"
  done; done
  for c in 1 16; do echo "main chunk $c sha256: $(cat /tmp/plumb-$c.bin /tmp/plumb-$c.mtp | sha256sum | cut -c1-16)"; done
  echo "cluster, PLUMB_FP8_CLUSTER=0 chunk 1: $(PLUMB_FP8_CLUSTER=0 timeout -k 5 60 $B/plumb-next-fp8-cluster logits --backend cuda --ids "$I" --chunk 1 --out /tmp/c0.bin --mtp-out /tmp/c0.mtp >/dev/null 2>&1; cmp -s /tmp/c0.bin /tmp/plumb-1.bin && cmp -s /tmp/c0.mtp /tmp/plumb-1.mtp && echo bit-identical || echo DIFFERS)"
  echo "combo contract: $(timeout -k 5 150 $B/plumb-next-combo contract --backend cuda > $R/contract-combo.txt 2>&1; tail -1 $R/contract-combo.txt)"
  echo "combo CUDA tests: $(timeout -k 5 120 $B/test_dsv4_forward-next-combo --gtest_filter='*cuda*:Cuda*' 2>&1 | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')"
} | tee $R/checks.txt
grep -E "FAIL|fail|missed" $R/contract-combo.txt | head -20
echo "t=$SECONDS"
for v in plumb plumb-next-combo; do  # one window layer's FP8 linears and hc_pre alone, one row
  PLUMB_CUDA_GRAPHS=0 timeout -k 5 60 $NCU --clock-control none --kernel-name regex:'fp8_linear|hc_pre|hc_mix|act_quant' --launch-count 14 \
    --metrics gpu__time_duration.sum $B/$v synth --only layers --rows 1 --repeats 1 --config .device/window-config.json > $R/ncu-$v.txt 2>&1
  echo "-- $v"; grep -E "^\s+[a-z].*\(|duration" $R/ncu-$v.txt | sed -E 's/\(unnamed[^)]*\)//g; s/plumb::cuda:://g; s/ops::<unnamed>:://; s/<unnamed>:://g' | paste - - | awk '{print $1, $2, $NF}' | cut -c1-90
done
# where the cluster kernel waits (wq_a at one row)
PLUMB_CUDA_GRAPHS=0 timeout -k 5 90 $NCU --clock-control none --set full --kernel-name regex:'fp8_linear_cluster' \
  --launch-count 3 -o /tmp/cl $B/plumb-next-combo synth --only layers --rows 1 --repeats 1 --config .device/window-config.json > /dev/null 2>&1
$NCU -i /tmp/cl.ncu-rep --page source --print-source sass --csv 2>/dev/null | gzip > $R/cluster-sass.csv.gz
$NCU -i /tmp/cl.ncu-rep --page details 2>/dev/null | gzip > $R/cluster-details.txt.gz
echo "t=$SECONDS"
for v in plumb plumb-next-fp8-cluster; do
  timeout -k 5 90 $B/$v synth --only kernels --rows 1 2 4 8 --repeats 20 --json $R/kernels-$v.json > $R/kernels-$v.txt 2>&1
  echo "== $v"; grep -E "^fp8 rows" $R/kernels-$v.txt | grep -E " (1|8) "
done
echo "t=$SECONDS"
for rep in 1 2 3; do for v in $V; do
  timeout -k 5 60 $B/$v synth --only layers --rows 1 16 --repeats 10 > $R/layers-$v-$rep.txt 2>&1
  echo "$v rep $rep:"; grep -E "^43" $R/layers-$v-$rep.txt | head -3
done; done
tar -czf $OUT/call2.tgz -C $R .; cp $R/checks.txt $OUT/
echo "t=$SECONDS"
