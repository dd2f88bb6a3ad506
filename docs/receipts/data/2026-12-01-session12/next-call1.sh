#!/usr/bin/env bash
# Prepared at the end of session 12 for the next session's first call (carry [".device"], timeout_s 420; about 4-5
# minutes). main (2e52caa: the kernels of f96ea80, which ran in session 12 call 6) against two builds NOT yet run
# on a GPU, and each one's A/B switch in its own binary:
#   next-fp8-block-sum (c80fc82): the two-launch FP8 kernel sums 2-8 K splits in shared memory, blocks of
#     max(4, splits) warps (wo_b: 8 splits, blocks of 8), where they went through the global tail
#     (PLUMB_FP8_BLOCK_SUM=0: the old launches)
#   next-pv-staged (ff51565): the one-wave attention_pv copies each softmax block's keys to shared memory with
#     cp.async a stage of 32 keys ahead (PLUMB_PV_STAGED=0: the register batches of 64)
# Expect the fingerprint cf824e82009a0f99 from every build, the contract (24 kernels, 34 controls red) and the CUDA
# tests (15/15) to pass.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin; R=$(mktemp -d)
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $R/gpu.txt
I=$(cat .device/ids.txt); N="next-fp8-block-sum next-pv-staged"
V="plumb"; for n in $N; do V="$V plumb-$n"; done
for v in $V; do for c in 1 16; do
  timeout -k 5 60 $B/$v logits --backend cuda --ids "$I" --chunk $c --out /tmp/$v-$c.bin --mtp-out /tmp/$v-$c.mtp >/dev/null 2>&1 || echo "$v chunk $c failed"
done; done
{ for v in $V; do for c in 1 16; do
    cmp -s /tmp/plumb-$c.bin /tmp/$v-$c.bin && cmp -s /tmp/plumb-$c.mtp /tmp/$v-$c.mtp && echo "$v chunk $c: bit-identical to main" || echo "$v chunk $c: DIFFERS from main"
  done; done
  for c in 1 16; do echo "main chunk $c sha256: $(cat /tmp/plumb-$c.bin /tmp/plumb-$c.mtp | sha256sum | cut -c1-16)"; done
  for n in $N; do
    echo "$n contract: $(timeout -k 5 150 $B/plumb-$n contract --backend cuda > $R/contract-$n.txt 2>&1; tail -1 $R/contract-$n.txt)"
    echo "$n CUDA tests: $(timeout -k 5 120 $B/test_dsv4_forward-$n --gtest_filter='*cuda*:Cuda*' 2>&1 | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')"
  done
} | tee $R/checks.txt
echo "t=$SECONDS"; cp $R/checks.txt $OUT/
run_round() {  # label, env, binary
  env $2 timeout -k 5 60 $B/$3 synth --only layers --rows 1 8 16 --repeats 10 > $R/layers-$1-$rep.txt 2>&1
  echo "$1 rep $rep: $(grep -E '^43' $R/layers-$1-$rep.txt | awk '{printf "%s ", $(NF-3)}') | CSA/4 top-k 1 row: $(grep -E '^layer CSA/4 top-k +1 slot, as drawn +1 ' $R/layers-$1-$rep.txt | awk '{print $(NF-3)}')"
}
for rep in 1 2 3; do
  for v in $V; do run_round $v X=1 $v; done
  run_round block-sum-off PLUMB_FP8_BLOCK_SUM=0 plumb-next-fp8-block-sum
  run_round pv-staged-off PLUMB_PV_STAGED=0 plumb-next-pv-staged
done | tee -a $R/checks.txt
echo "t=$SECONDS"; cp $R/checks.txt $OUT/
for v in $V; do  # wq_b, wo_b and the attention kernels of one CSA/4 layer at one row, alone
  PLUMB_CUDA_GRAPHS=0 timeout -k 5 90 /usr/local/cuda/bin/ncu --clock-control none --kernel-name regex:'fp8_linear_kernel|attention_pv|attention_logits' \
    --launch-count 5 --metrics gpu__time_duration.sum,launch__registers_per_thread \
    $B/$v synth --only layers --rows 1 --repeats 1 --config .device/csa-config.json > $R/ncu-$v.txt 2>&1
  echo "-- $v"; grep -E "^  [^ ]|gpu__time_duration" $R/ncu-$v.txt | sed -E 's/\(anonymous namespace\):://g; s/plumb::cuda::(ops::)?//g; s/\(.*\) \(/ (/; s/, Context.*//; s/ +/ /g' | paste - - | cut -c1-140
done | tee $R/ncu-summary.txt
tar -czf $OUT/next-call1.tgz -C $R .; cp $R/checks.txt $R/ncu-summary.txt $OUT/
echo "t=$SECONDS"
