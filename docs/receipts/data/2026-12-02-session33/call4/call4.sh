#!/usr/bin/env bash
# Session 33 call 4 (carry [".device"], timeout_s 200): branch next-fp8-ring's plumb alone. `synth --only kernels`
# twice for its launch chains: kernels that do nothing but the PDL protocol (one block, one a multiprocessor) and
# a chain of one-row rms_norms, each as a plain graph and through a LaunchQueue (programmatic edges, as served).
set -uo pipefail
source tools/device/call_start.sh
E=plumb
for i in 1 2; do
  timeout -k 5 150 $B/$E synth --only kernels --rows 1,8 > $R/kernels-$i.txt 2>&1; echo "rc=$? t=$SECONDS"
  grep -E "copy|chain|^pdl|act_quant|^read|wq_b 32768x1024 +1 |wo_b 4096x8192 +1 " $R/kernels-$i.txt | tee -a $OUT/classes.txt
done
tar -czf $OUT/call.tgz -C $R .
echo "t=$SECONDS"
