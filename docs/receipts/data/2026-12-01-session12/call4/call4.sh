#!/usr/bin/env bash
# Session 12 call 4: main (5fa602c) against three builds NOT yet run on a GPU:
#   next-experts-f16 (0e481ce): experts_pass's MMA as two f16 HMMAs without the zero accumulator's FADDs; one e8m0
#     special-byte test a step
#   next-logits-h2 (e84c07c): attention_logits blocks of 2 heads
#   next-indexer-rows2 (1de467d): indexer_scores two index rows a warp
# Expect the fingerprint cf824e82009a0f99 from every build, contract 24/24 (34 controls red), CUDA tests 15/15.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin; R=$(mktemp -d)
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > $R/gpu.txt
I=$(cat .device/ids.txt); N="next-experts-f16 next-logits-h2 next-indexer-rows2"
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
done | tee -a $R/checks.txt
echo "t=$SECONDS"
# Kernels of interest in one CSA layer at one row, each build.
for v in $V; do
  PLUMB_CUDA_GRAPHS=0 timeout -k 5 90 /usr/local/cuda/bin/ncu --clock-control none --kernel-name regex:'experts_pass|attention_logits|indexer_' \
    --launch-count 5 --metrics gpu__time_duration.sum,dram__bytes_read.sum,launch__registers_per_thread \
    $B/$v synth --only layers --rows 1 --repeats 1 --config .device/csa-config.json > $R/ncu-$v.txt 2>&1
  echo "-- $v"; grep -E "^  [^ ]|gpu__time_duration" $R/ncu-$v.txt | sed -E 's/\(anonymous namespace\):://g; s/plumb::cuda::(ops::)?//g; s/\(.*\) \(/ (/; s/, Context.*//; s/ +/ /g' | paste - - | cut -c1-140
done | tee $R/ncu-summary.txt
echo "t=$SECONDS"
for n in $N; do
  echo "$n contract: $(timeout -k 5 150 $B/plumb-$n contract --backend cuda > $R/contract-$n.txt 2>&1; tail -1 $R/contract-$n.txt)"
  echo "$n CUDA tests: $(timeout -k 5 120 $B/test_dsv4_forward-$n --gtest_filter='*cuda*:Cuda*' 2>&1 | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')"
  echo "t=$SECONDS"
done | tee -a $R/checks.txt
CO=/usr/local/cuda/bin/cuobjdump
for v in plumb plumb-next-experts-f16; do
  $CO -sass $B/$v 2>/dev/null | python3 -c "
import re, sys, collections
text = sys.stdin.read()
for f in re.split(r'\n\s*Function : ', text)[1:]:
    name = f.split('\n', 1)[0].strip()
    if 'experts_pass_kernelILi1E' not in name: continue
    c = collections.Counter(re.findall(r'/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P[0-9T]\s+)?([A-Z][A-Z0-9_]*)', f))
    print('$v', name[-40:], 'total', sum(c.values()), ', '.join(f'{k} {n}' for k, n in c.most_common(14)))
"
done | tee $R/sass-experts.txt
tar -czf $OUT/call4.tgz -C $R .; cp $R/checks.txt $R/ncu-summary.txt $OUT/
echo "t=$SECONDS"
