#!/usr/bin/env bash
# Session 33 call 2 (carry [".device"], timeout_s 300): branch next-fp8-ring's plumb alone, now with the one-launch
# ring (the weights' first steps in flight while the block quantizes). `synth --only kernels` twice (synth fails if
# a ring variant's outputs at 1-8 rows differ from main's kernel byte for byte), then ncu of the one-launch ring at
# one row (wq_b's launches first, then wo_b's).
set -uo pipefail
source tools/device/call_start.sh
E=plumb
for i in 1 2; do
  timeout -k 5 150 $B/$E synth --only kernels --rows 1,2,4,8,16 > $R/kernels-$i.txt 2>&1; echo "rc=$? t=$SECONDS"
  grep -E "copy|^fp8 rows (ring|two|one)|^read|wq_b 32768x1024 +1 |wo_b 4096x8192 +1 " $R/kernels-$i.txt | tee -a $OUT/classes.txt
done
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
M=gpu__time_duration.sum,dram__bytes_read.sum.per_second,smsp__inst_executed.sum,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,launch__registers_per_thread,launch__occupancy_limit_shared_mem
timeout -k 5 120 "$ncu" --clock-control none --cache-control all --kernel-name regex:"fp8_linear_fused_ring" --launch-count 40 --metrics $M \
  $B/$E synth --only kernels --rows 1 --repeats 1 > $R/ncu-fused-ring.txt 2>&1
grep -E "^  [^ ]|gpu__|dram__|smsp__|launch__" $R/ncu-fused-ring.txt | sed -E 's/\(anonymous namespace\):://g; s/plumb::cuda::(fp8_detail::)?//g; s/, Context.*//; s/ +/ /g' > $OUT/ncu-summary.txt
python3 - $OUT/ncu-summary.txt <<'PY'
import sys, re, collections
cur=None; d=collections.defaultdict(lambda: collections.defaultdict(list))
for line in open(sys.argv[1]):
    m=re.search(r'(fp8_linear_fused_ring_kernel<\d>)\(.*\) \((\d+), 1, 1\)', line)
    if m: cur=m.group(1)+' grid '+m.group(2); continue
    p=line.split()
    if cur and len(p)>=3: d[cur][p[0]].append(p[-1])
for k,v in d.items():
    print(k); [print('  ',m,' '.join(x)) for m,x in v.items()]
PY
tar -czf $OUT/call.tgz -C $R .
echo "t=$SECONDS"
