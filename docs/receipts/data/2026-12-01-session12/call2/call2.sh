#!/usr/bin/env bash
# Session 12 call 2: main (c42cfb4) against five builds NOT yet run on a GPU, plus two A/B switches in one binary:
#   next-experts-ring (ef369b0): experts_pass with a ring of 3 (gate/up) / 4 (down) super-blocks in one-wave launches
#   next-pv-ch64 (7ccc02d), next-pv-ch32 (723f1bf): attention_pv blocks of 64 / 32 channels (128 / 256 blocks a CSA row)
#   next-indexer (f2e88fe): indexer_scores reads the index row from shared memory; indexer_select 8 threads a row
#   next-fp8-ring (a20dc96): fp8_linear_kernel<1> with a ring of 3 K blocks, first weights before the PDL wait
# Expect the fingerprint cf824e82009a0f99 from every build, contract 24/24 (34 controls red), CUDA tests 15/15.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin; R=$(mktemp -d)
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > $R/gpu.txt
I=$(cat .device/ids.txt); N="next-experts-ring next-pv-ch64 next-pv-ch32 next-indexer next-fp8-ring"
V="plumb"; for n in $N; do V="$V plumb-$n"; done
for v in $V; do for c in 1 16; do
  timeout -k 5 60 $B/$v logits --backend cuda --ids "$I" --chunk $c --out /tmp/$v-$c.bin --mtp-out /tmp/$v-$c.mtp >/dev/null 2>&1 || echo "$v chunk $c failed"
done; done
{ for v in $V; do for c in 1 16; do
    cmp -s /tmp/plumb-$c.bin /tmp/$v-$c.bin && cmp -s /tmp/plumb-$c.mtp /tmp/$v-$c.mtp && echo "$v chunk $c: bit-identical to main" || echo "$v chunk $c: DIFFERS from main"
  done; done
  for c in 1 16; do echo "main chunk $c sha256: $(cat /tmp/plumb-$c.bin /tmp/plumb-$c.mtp | sha256sum | cut -c1-16)"; done
} | tee $R/checks.txt
echo "t=$SECONDS"
# The round: each build twice, alternating, plus the ring switches off in their own binaries.
run_round() {  # label, env, binary
  env $2 timeout -k 5 60 $B/$3 synth --only layers --rows 1 8 16 --repeats 10 > $R/layers-$1-$rep.txt 2>&1
  echo "$1 rep $rep: $(grep -E '^43' $R/layers-$1-$rep.txt | awk '{printf "%s ", $(NF-3)}') | CSA/4 top-k 1 row: $(grep -E '^layer CSA/4 top-k +1 slot, as drawn +1 ' $R/layers-$1-$rep.txt | awk '{print $(NF-3)}')"
}
for rep in 1 2; do
  for v in $V; do run_round $v "X=1" $v; done
  run_round experts-ring-off PLUMB_EXPERTS_RING=0 plumb-next-experts-ring
  run_round fp8-ring-off PLUMB_FP8_RING=0 plumb-next-fp8-ring
done | tee -a $R/checks.txt
echo "t=$SECONDS"
# Kernels of interest in one CSA layer at one row, each build.
for v in $V; do
  PLUMB_CUDA_GRAPHS=0 timeout -k 5 90 /usr/local/cuda/bin/ncu --clock-control none --kernel-name regex:'experts_pass|attention_pv|attention_logits|indexer_|fp8_linear_kernel' \
    --launch-count 9 --metrics gpu__time_duration.sum,dram__bytes_read.sum,launch__registers_per_thread \
    $B/$v synth --only layers --rows 1 --repeats 1 --config .device/csa-config.json > $R/ncu-$v.txt 2>&1
  echo "-- $v"; grep -E "^  [^ ]|gpu__time_duration" $R/ncu-$v.txt | sed -E 's/\(anonymous namespace\):://g; s/plumb::cuda::(ops::)?//g; s/\(.*\) \(/ (/; s/, Context.*//; s/ +/ /g' | paste - - | cut -c1-140
done | tee $R/ncu-summary.txt
echo "t=$SECONDS"
for n in $N; do
  echo "$n contract: $(timeout -k 5 150 $B/plumb-$n contract --backend cuda > $R/contract-$n.txt 2>&1; tail -1 $R/contract-$n.txt)"
  echo "$n CUDA tests: $(timeout -k 5 120 $B/test_dsv4_forward-$n --gtest_filter='*cuda*:Cuda*' 2>&1 | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')"
  echo "t=$SECONDS"
done | tee -a $R/checks.txt
tar -czf $OUT/call2.tgz -C $R .; cp $R/checks.txt $R/ncu-summary.txt $OUT/
echo "t=$SECONDS"
