#!/usr/bin/env bash
# Session 12 call 3: main (07af26d, with next-indexer) against two P.V builds NOT yet run on a GPU:
#   next-pv-chunk1024 (00d8edb): attention_pv chunks of 1024 entries (a CSA row is one chunk, not two)
#   next-pv-prefetch (ea42fb7): that, and the 64-key variant loads the next 32 keys while the current 32 are summed
# Then stall profiles of main's largest kernels and SASS histograms, for the next session's leads.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin; R=$(mktemp -d)
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > $R/gpu.txt
I=$(cat .device/ids.txt); N="next-pv-chunk1024 next-pv-prefetch"
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
run_round() {  # label, binary
  timeout -k 5 60 $B/$2 synth --only layers --rows 1 8 16 --repeats 10 > $R/layers-$1-$rep.txt 2>&1
  echo "$1 rep $rep: $(grep -E '^43' $R/layers-$1-$rep.txt | awk '{printf "%s ", $(NF-3)}') | CSA/4 top-k 1 row: $(grep -E '^layer CSA/4 top-k +1 slot, as drawn +1 ' $R/layers-$1-$rep.txt | awk '{print $(NF-3)}') | HCA 1 row: $(grep -E '^layer HCA/128 top-k +1 slot, as drawn +1 ' $R/layers-$1-$rep.txt | awk '{print $(NF-3)}')"
}
for rep in 1 2 3; do for v in $V; do run_round $v $v; done; done | tee -a $R/checks.txt
echo "t=$SECONDS"
for v in $V; do
  PLUMB_CUDA_GRAPHS=0 timeout -k 5 90 /usr/local/cuda/bin/ncu --clock-control none --kernel-name regex:'attention_pv|attention_logits' \
    --launch-count 4 --metrics gpu__time_duration.sum,launch__registers_per_thread \
    $B/$v synth --only layers --rows 1 --repeats 1 --config .device/csa-config.json > $R/ncu-$v.txt 2>&1
  echo "-- $v"; grep -E "^  [^ ]|gpu__time_duration" $R/ncu-$v.txt | sed -E 's/\(anonymous namespace\):://g; s/plumb::cuda::(ops::)?//g; s/\(.*\) \(/ (/; s/, Context.*//; s/ +/ /g' | paste - - | cut -c1-140
done | tee $R/ncu-summary.txt
echo "t=$SECONDS"
# Stall profiles of main's largest kernels in one CSA layer at one row (for the next leads).
PLUMB_CUDA_GRAPHS=0 timeout -k 5 150 /usr/local/cuda/bin/ncu --clock-control none \
  --kernel-name regex:'attention_pv|attention_logits|fp8_linear_kernel|experts_pass|dense_linear_vector_kernel<0' --launch-count 7 \
  --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis \
  --metrics smsp__inst_executed.sum,smsp__cycles_active.avg \
  $B/plumb synth --only layers --rows 1 --repeats 1 --config .device/csa-config.json > $R/ncu-stalls-main.txt 2>&1
grep -E "^  [^ ]|Duration|Issued Ipc|Warp Cycles Per Issued|Stall|inst_executed|Achieved Occupancy|Memory Throughput|DRAM Throughput|Registers Per" $R/ncu-stalls-main.txt | sed -E 's/\(anonymous namespace\):://g; s/plumb::cuda::(ops::)?//g; s/\(.*\) \(/ (/; s/, Context.*//; s/ +/ /g' | head -90
echo "t=$SECONDS"
# SASS instruction histograms of the largest kernels (no disassembler on the build machine).
CO=/usr/local/cuda/bin/cuobjdump; [ -x $CO ] || CO=$(command -v cuobjdump)
if [ -n "$CO" ]; then
  $CO -sass $B/plumb > $R/sass-all.txt 2>&1
  python3 - "$R/sass-all.txt" <<'PY' | tee $R/sass-histograms.txt
import re, sys, collections
text = open(sys.argv[1]).read()
funcs = re.split(r'\n\s*Function : ', text)
for f in funcs[1:]:
    name = f.split('\n', 1)[0].strip()
    if not re.search(r'experts_pass|fp8_linear_kernel|attention_pv|dense_linear_vector_kernelILi0', name): continue
    ops = re.findall(r'/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P[0-9T]\s+)?([A-Z][A-Z0-9_]*)', f)
    c = collections.Counter(ops)
    print(name[:110], 'total', sum(c.values()))
    print('   ', ', '.join(f'{k} {v}' for k, v in c.most_common(18)))
PY
  gzip -f $R/sass-all.txt
fi
echo "t=$SECONDS"
for n in $N; do
  echo "$n contract: $(timeout -k 5 150 $B/plumb-$n contract --backend cuda > $R/contract-$n.txt 2>&1; tail -1 $R/contract-$n.txt)"
  echo "$n CUDA tests: $(timeout -k 5 120 $B/test_dsv4_forward-$n --gtest_filter='*cuda*:Cuda*' 2>&1 | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')"
  echo "t=$SECONDS"
done | tee -a $R/checks.txt
tar -czf $OUT/call3.tgz -C $R .; cp $R/checks.txt $R/ncu-summary.txt $OUT/
echo "t=$SECONDS"
