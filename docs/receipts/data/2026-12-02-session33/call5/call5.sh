#!/usr/bin/env bash
# Session 33 call 5 (carry [".device"], timeout_s 240): main as landed (the synth timing helpers moved to
# synth_timing.cu, the floor classes in synth_floors.cu), `synth --only kernels` twice: every class as before, then
# the bare reads and the launch chains.
set -uo pipefail
source tools/device/call_start.sh
E=plumb
$B/$E version | tee $OUT/version.txt
for i in 1 2; do
  timeout -k 5 150 $B/$E synth --only kernels --rows 1,2,4,8,16 --json $R/kernels-$i.json > $R/kernels-$i.txt 2>&1; echo "rc=$? t=$SECONDS"
  cat $R/kernels-$i.txt >> $OUT/classes.txt
done
grep -E "copy|read only|chain|wq_b 32768x1024 +1 |wo_b 4096x8192 +1 |same 6 experts +top-6 of 256 x4096x2048 +1 " $R/kernels-*.txt
tar -czf $OUT/call.tgz -C $R .
echo "t=$SECONDS"
