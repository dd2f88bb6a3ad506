#!/usr/bin/env bash
# Session 33 call 3 (carry [".device"], timeout_s 240): branch next-fp8-ring's plumb alone. `synth --only kernels`
# twice, now also timing wq_b and wo_b through a LaunchQueue (graphs with programmatic edges, as served): main's two
# launches against the two-launch ring (whose first 4 steps start before its PDL wait, while act_quant runs), and
# act_quant alone both ways.
set -uo pipefail
source tools/device/call_start.sh
E=plumb
for i in 1 2; do
  timeout -k 5 150 $B/$E synth --only kernels --rows 1,2,4,8,16 > $R/kernels-$i.txt 2>&1; echo "rc=$? t=$SECONDS"
  grep -E "copy|^pdl|act_quant|^fp8 rows (ring 4 two|two)|^read|wq_b 32768x1024 +1 |wo_b 4096x8192 +1 " $R/kernels-$i.txt | tee -a $OUT/classes.txt
done
tar -czf $OUT/call.tgz -C $R .
echo "t=$SECONDS"
