#!/usr/bin/env bash
# Prepared at the end of session 11 for the next session's first call (carry [".device"], timeout_s 360; about 4-5
# minutes). main (3d92f07: the kernels that ran in session 11 call 7) against two builds NOT yet run on a GPU:
#   next-pair-16 (95606b4): the shared expert's w1 and w3 as one fused pair launch (8 rows a pass) up to 16 rows,
#     where 9-16 rows ran as two two-launch linears (24.1 us each at 16 rows, call 7). The contract's shared-expert
#     entry runs the fused pair at 9-16 rows (gate 3).
#   next-wo-a-cvt2 (3b7fb5f): the FP8 dense kernels (wo_a: 19.3 us, 43% of the bandwidth) convert two e4m3 codes a
#     hardware conversion instead of one (the same conversion, so the same values).
# Expect the fingerprint cf824e82009a0f99 from every build, the contract (24 kernels, 34 controls red) and the CUDA
# tests (15/15) to pass.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin; R=$(mktemp -d)
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
I=$(cat .device/ids.txt); V="plumb plumb-next-pair-16 plumb-next-wo-a-cvt2"
for v in $V; do for c in 1 16; do
  timeout -k 5 60 $B/$v logits --backend cuda --ids "$I" --chunk $c --out /tmp/$v-$c.bin --mtp-out /tmp/$v-$c.mtp >/dev/null 2>&1 || echo "$v chunk $c failed"
done; done
{ for v in $V; do for c in 1 16; do
    cmp -s /tmp/plumb-$c.bin /tmp/$v-$c.bin && cmp -s /tmp/plumb-$c.mtp /tmp/$v-$c.mtp && echo "$v chunk $c: bit-identical to main" || echo "$v chunk $c: DIFFERS from main"
  done; done
  for c in 1 16; do echo "main chunk $c sha256: $(cat /tmp/plumb-$c.bin /tmp/plumb-$c.mtp | sha256sum | cut -c1-16)"; done
  for v in plumb-next-pair-16 plumb-next-wo-a-cvt2; do
    echo "$v contract: $(timeout -k 5 150 $B/$v contract --backend cuda > $R/contract-$v.txt 2>&1; tail -1 $R/contract-$v.txt)"
    echo "$v CUDA tests: $(timeout -k 5 120 $B/test_dsv4_forward-${v#plumb-} --gtest_filter='*cuda*:Cuda*' 2>&1 | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')"
  done
} | tee $R/checks.txt
echo "t=$SECONDS"
for v in plumb plumb-next-wo-a-cvt2; do  # wo_a and the router gate (dense_linear) alone, one window layer, one row
  PLUMB_CUDA_GRAPHS=0 timeout -k 5 60 /usr/local/cuda/bin/ncu --clock-control none --kernel-name regex:'dense_linear' --launch-count 4 \
    --metrics gpu__time_duration.sum,smsp__issue_active.avg.per_cycle_active,dram__bytes_read.sum \
    $B/$v synth --only layers --rows 1 --repeats 1 --config .device/window-config.json > $R/ncu-dense-$v.txt 2>&1
  echo "-- $v"; grep -E "dense_linear|duration|issue_active|dram__bytes" $R/ncu-dense-$v.txt | sed -E 's/\(unnamed[^)]*\)//g; s/ +/ /g' | cut -c1-110
done
echo "t=$SECONDS"
for rep in 1 2; do for v in $V; do
  timeout -k 5 60 $B/$v synth --only layers --rows 1 8 12 16 --repeats 10 > $R/layers-$v-$rep.txt 2>&1
  echo "$v rep $rep:"; grep -E "^43" $R/layers-$v-$rep.txt | head -4
done; done
tar -czf $OUT/next-call1.tgz -C $R .; cp $R/checks.txt $OUT/
echo "t=$SECONDS"
