#!/usr/bin/env bash
# Prepared at the end of session 11 for the next session's first call (carry [".device"], timeout_s 300; about 3 min):
# main (4ee2cfb, whose kernels ran in session 11 call 7) against next-pair-16 (95606b4, NOT yet run on a GPU): the
# shared expert's w1 and w3 in one launch (the fused pair kernel, 8 rows a pass) up to 16 rows, where 9-16 rows ran
# as two two-launch linears (24.1 us each at 16 rows). Same bits by construction; the contract's shared-expert entry
# runs the fused pair at 9-16 rows (gate 3).
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin; R=$(mktemp -d)
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
I=$(cat .device/ids.txt); N=plumb-next-pair-16
for v in plumb $N; do for c in 1 16; do
  timeout -k 5 60 $B/$v logits --backend cuda --ids "$I" --chunk $c --out /tmp/$v-$c.bin --mtp-out /tmp/$v-$c.mtp >/dev/null 2>&1 || echo "$v chunk $c failed"
done; done
{ for c in 1 16; do cmp -s /tmp/plumb-$c.bin /tmp/$N-$c.bin && cmp -s /tmp/plumb-$c.mtp /tmp/$N-$c.mtp && echo "chunk $c: bit-identical to main" || echo "chunk $c: DIFFERS from main"; done
  echo "main chunk 16 sha256: $(cat /tmp/plumb-16.bin /tmp/plumb-16.mtp | sha256sum | cut -c1-16)"
  echo "contract: $(timeout -k 5 150 $B/$N contract --backend cuda > $R/contract.txt 2>&1; tail -1 $R/contract.txt)"
  echo "CUDA tests: $(timeout -k 5 120 $B/test_dsv4_forward-next-pair-16 --gtest_filter='*cuda*:Cuda*' 2>&1 | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')"
} | tee $R/checks.txt
echo "t=$SECONDS"
for v in plumb $N; do
  timeout -k 5 60 $B/$v synth --only kernels --rows 8 16 --repeats 20 > $R/kernels-$v.txt 2>&1
  echo "== $v"; grep -E "^fp8 rows" $R/kernels-$v.txt
done
echo "t=$SECONDS"
for rep in 1 2; do for v in plumb $N; do
  timeout -k 5 60 $B/$v synth --only layers --rows 1 8 12 16 --repeats 10 > $R/layers-$v-$rep.txt 2>&1
  echo "$v rep $rep:"; grep -E "^43" $R/layers-$v-$rep.txt | head -4
done; done
tar -czf $OUT/next-call1.tgz -C $R .
echo "t=$SECONDS"
