#!/usr/bin/env bash
# Session 12 call 6 (the last of the session's device time): main (ce3b7ce's kernels) against next-experts-pair-sum
# (f683a72, NOT yet run on a GPU): with two K splits the gate/up pass's warp pair sums in shared memory, not
# through the global tail. Bits, the branch's contract and CUDA tests, the round alternating, the experts alone.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin; R=$(mktemp -d)
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $R/gpu.txt
I=$(cat .device/ids.txt); n=next-experts-pair-sum
for v in plumb plumb-$n; do for c in 1 16; do
  timeout -k 5 60 $B/$v logits --backend cuda --ids "$I" --chunk $c --out /tmp/$v-$c.bin --mtp-out /tmp/$v-$c.mtp >/dev/null 2>&1 || echo "$v chunk $c failed"
done; done
{ for c in 1 16; do
    cmp -s /tmp/plumb-$c.bin /tmp/plumb-$n-$c.bin && cmp -s /tmp/plumb-$c.mtp /tmp/plumb-$n-$c.mtp && echo "chunk $c: $n bit-identical to main" || echo "chunk $c: $n DIFFERS from main"
    echo "main chunk $c sha256: $(cat /tmp/plumb-$c.bin /tmp/plumb-$c.mtp | sha256sum | cut -c1-16)"
  done
  echo "$n contract: $(timeout -k 5 150 $B/plumb-$n contract --backend cuda > $R/contract-$n.txt 2>&1; tail -1 $R/contract-$n.txt)"
  echo "$n CUDA tests: $(timeout -k 5 120 $B/test_dsv4_forward-$n --gtest_filter='*cuda*:Cuda*' 2>&1 | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')"
} | tee $R/checks.txt
echo "t=$SECONDS"; cp $R/checks.txt $OUT/
for rep in 1 2 3; do for v in plumb plumb-$n; do
  timeout -k 5 60 $B/$v synth --only layers --rows 1 8 16 --repeats 10 > $R/layers-$v-$rep.txt 2>&1
  echo "$v rep $rep: $(grep -E '^43' $R/layers-$v-$rep.txt | awk '{printf "%s ", $(NF-3)}')"
done; done | tee -a $R/checks.txt
echo "t=$SECONDS"; cp $R/checks.txt $OUT/
for v in plumb plumb-$n; do
  PLUMB_CUDA_GRAPHS=0 timeout -k 5 60 /usr/local/cuda/bin/ncu --clock-control none --kernel-name regex:'experts_pass' --launch-count 2 \
    --metrics gpu__time_duration.sum $B/$v synth --only layers --rows 1 --repeats 1 --config .device/window-config.json > $R/ncu-$v.txt 2>&1
  echo "-- $v: $(grep -E 'gpu__time_duration' $R/ncu-$v.txt | awk '{print $NF}' | tr '\n' ' ')"
done | tee $R/ncu-summary.txt
tar -czf $OUT/call6.tgz -C $R .
echo "t=$SECONDS"
