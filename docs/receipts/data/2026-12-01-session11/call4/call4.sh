#!/usr/bin/env bash
# Session 11 call 4: the session's start (6616bca) and main (195b74a: the shared expert's pair, the cluster FP8
# linears, hc_pre's scalar warp) against next-combo2 (5f440c1), which adds
#   hc_pre_norm: hc_pre and the sublayer's RMSNorm in one launch (PLUMB_HC_PRE_NORM=0: two launches; same bits);
#   norm_rope_store: a key row's norm, RoPE, (Hadamard,) rounding and ring store in one launch
#     (PLUMB_NORM_ROPE_STORE=0: the separate launches; same bits).
# Variants name=binary[:ENV=..]: combo2 with one of the two switched off times the other alone.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin; R=$(mktemp -d)
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
I=$(cat .device/ids.txt)
V="start=plumb-session11-start main=plumb combo2=plumb-next-combo2 hcnorm=plumb-next-combo2:PLUMB_NORM_ROPE_STORE=0 kvstore=plumb-next-combo2:PLUMB_HC_PRE_NORM=0"
cmd() {  # cmd VARIANT: the variant's binary, behind `env` with its switch
  local spec=${1#*=} env=""; [[ $spec == *:* ]] && env=${spec#*:}
  echo "env $env $B/${spec%%:*}"
}
NCU=/usr/local/cuda/bin/ncu; LAST=plumb-next-combo2
for spec in $V; do v=${spec%%=*}; for c in 1 16; do
  timeout -k 5 60 $(cmd $spec) logits --backend cuda --ids "$I" --chunk $c --out /tmp/$v-$c.bin --mtp-out /tmp/$v-$c.mtp >/dev/null 2>$R/logits-$v-$c.err || echo "$v chunk $c failed: $(tail -2 $R/logits-$v-$c.err)"
done; done
{ for spec in $V; do v=${spec%%=*}; for c in 1 16; do
    cmp -s /tmp/main-$c.bin /tmp/$v-$c.bin && cmp -s /tmp/main-$c.mtp /tmp/$v-$c.mtp && echo "$v chunk $c: bit-identical to main" || echo "$v chunk $c: DIFFERS from main"
  done; done
  for c in 1 16; do echo "main chunk $c sha256: $(cat /tmp/main-$c.bin /tmp/main-$c.mtp | sha256sum | cut -c1-16)"; done
  echo "combo2 with PLUMB_HC_PRE_NORM=0 PLUMB_NORM_ROPE_STORE=0, chunk 1: $(PLUMB_HC_PRE_NORM=0 PLUMB_NORM_ROPE_STORE=0 timeout -k 5 60 $B/$LAST logits --backend cuda --ids "$I" --chunk 1 --out /tmp/c0.bin --mtp-out /tmp/c0.mtp >/dev/null 2>&1; cmp -s /tmp/c0.bin /tmp/main-1.bin && cmp -s /tmp/c0.mtp /tmp/main-1.mtp && echo bit-identical || echo DIFFERS)"
  echo "combo2 contract: $(timeout -k 5 150 $B/$LAST contract --backend cuda > $R/contract-combo2.txt 2>&1; tail -1 $R/contract-combo2.txt)"
  echo "combo2 CUDA tests: $(timeout -k 5 120 $B/test_dsv4_forward-next-combo2 --gtest_filter='*cuda*:Cuda*' 2>&1 | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')"
} | tee $R/checks.txt
grep -E "FAIL|fail|missed|mhc_pre_norm|norm_rope" $R/contract-combo2.txt | head -20
echo "t=$SECONDS"
for v in plumb $LAST; do  # one window layer's kernels alone, one row
  PLUMB_CUDA_GRAPHS=0 timeout -k 5 60 $NCU --clock-control none --launch-count 130 --csv --metrics gpu__time_duration.sum \
    $B/$v synth --only layers --rows 1 --repeats 1 --config .device/window-config.json > $R/ncu-window-$v.csv 2>/dev/null
  PLUMB_CUDA_GRAPHS=0 timeout -k 5 60 $NCU --clock-control none --launch-count 130 --csv --metrics gpu__time_duration.sum \
    $B/$v synth --only layers --rows 1 --repeats 1 --config .device/csa-config.json > $R/ncu-csa-$v.csv 2>/dev/null
done
echo "t=$SECONDS"
for rep in 1 2 3; do for spec in $V; do v=${spec%%=*}
  timeout -k 5 60 $(cmd $spec) synth --only layers --rows 1 16 --repeats 10 > $R/layers-$v-$rep.txt 2>&1
  echo "$v rep $rep:"; grep -E "^43" $R/layers-$v-$rep.txt | head -3
done; done
tar -czf $OUT/call4.tgz -C $R .; cp $R/checks.txt $OUT/
echo "t=$SECONDS"
