#!/usr/bin/env bash
# Session 26, call 1 (carry [".device"], timeout_s 600): the experts' codes laid out so each of a warp's two 16-byte
# loads reads one contiguous 512-byte run (branch next-experts-coalesced, PLUMB_EXPERTS_COALESCED; the interleaved
# layout had each load read half of each of 32 sectors), and main a6c7145's attention fallback (the shuffle trees,
# PLUMB_ATTENTION_SMEM_TREE=0, rewritten with lambdas, not yet run on a GPU). Built with
# scripts/device-bundle-ab next-experts-coalesced -- test_dsv4_forward (main's test binary removed). Answers: bits of
# both against main's default (cf824e82009a0f99); the CUDA tests and the experts' contract entry on the branch; the
# attention contract entries with the fallback; ncu of the one-row passes with each layout (sectors, duration); the
# SASS opcode counts of the one-row passes; the experts' kernel classes with each layout; the round alternated.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
R=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt
E=plumb-next-experts-coalesced S=PLUMB_EXPERTS_COALESCED
CONTRACTS="none" LIGHT=1 KERNELS=0 AB="plumb $E $E@$S=0 plumb@PLUMB_ATTENTION_SMEM_TREE=0" OUT=/tmp/ab bash tools/device/ab-builds.sh > /dev/null
cp /tmp/ab/checks.txt $R/bits.txt; cat $R/bits.txt | tee $OUT/bits.txt; echo "t=$SECONDS"
{
  echo "CUDA tests: $(timeout -k 5 100 $B/test_dsv4_forward-next-experts-coalesced --gtest_filter='*cuda*:Cuda*' 2>&1 | tee $R/cuda-tests.log | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')"
  for v in "$S=1" "$S=0"; do
    echo "$v $(env $v timeout -k 5 60 $B/$E contract --backend cuda --only fp4_experts_cuda 2>&1 | tee "$R/contract-experts-${v//=/-}.txt" | grep -E '^fp4_experts')"
  done
  for k in window_attention sparse_attention attention_rope; do
    echo "main SMEM_TREE=0 $(PLUMB_ATTENTION_SMEM_TREE=0 timeout -k 5 60 $B/plumb contract --backend cuda --only $k 2>&1 | tee "$R/contract-$k-tree0.txt" | grep -E "^$k")"
  done
} | tee $R/tests.txt $OUT/tests.txt
echo "t=$SECONDS"
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for v in "$S=1" "$S=0"; do
  env $v PLUMB_CUDA_GRAPHS=0 timeout -k 5 100 $NCU --clock-control none --kernel-name regex:experts_pass --launch-count 2 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \
    --metrics smsp__inst_executed.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,lts__t_sectors_srcunit_tex_op_read.sum,dram__sectors_read.sum \
    $B/$E synth --only layers --rows 1 --repeats 1 --config .device/window-config.json > "$R/ncu-${v//=/-}.txt" 2>&1
  echo "== $v"
  grep -E "^  [^ ]|Duration|DRAM Throughput|L2 Cache Throughput|Warp Cycles Per Issued|inst_executed.sum|requests_pipe|sectors_pipe|srcunit_tex|dram__sectors|L2 Hit" "$R/ncu-${v//=/-}.txt" | sed -E 's/\(anonymous namespace\):://g; s/plumb::cuda::(ops::)?//g; s/\(PassArgs\)//; s/, Context.*//; s/ +/ /g'
done | tee $R/ncu-summary.txt $OUT/ncu-summary.txt
CUOBJ=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
$CUOBJ -sass $B/$E 2>/dev/null > $R/sass-all.txt
python3 - "$R/sass-all.txt" > $R/sass-opcodes.txt <<'PY'
import re, sys, collections
# Static opcode counts of the one-row-capable 8-row experts passes (NT = 1), kernel by kernel.
counts, fn = collections.defaultdict(collections.Counter), None
for line in open(sys.argv[1]):
    m = re.search(r"Function : (\S+)", line)
    if m: fn = m.group(1) if "experts_pass_kernelILi1E" in m.group(1) else None; continue
    m = fn and re.search(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P[0-9T]+\s+)?([A-Z][A-Z0-9_]*)", line)
    if m: counts[fn][m.group(1)] += 1
for fn, c in counts.items():
    print(fn, sum(c.values()), " ".join(f"{k}:{v}" for k, v in c.most_common()))
PY
gzip $R/sass-all.txt
wc -l $R/sass-opcodes.txt; echo "t=$SECONDS"
for v in "$S=1" "$S=0"; do
  env $v timeout -k 5 80 $B/$E synth --only kernels > "$R/kernels-${v//=/-}.txt" 2>&1
  echo "$v"; grep -E "^experts" "$R/kernels-${v//=/-}.txt"
done | tee $R/classes.txt $OUT/classes.txt
echo "t=$SECONDS"
STOP_AFTER=$((500 - SECONDS)) OUT=$R bash tools/device/alternate.sh $E $E@$S=0 > /dev/null
cp $R/medians.txt $OUT/; cat $R/medians.txt
tar -czf $OUT/call.tgz -C $R .
echo "t=$SECONDS"
