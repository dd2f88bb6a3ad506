#!/usr/bin/env bash
# Session 33 call 8 (carry [".device"], timeout_s 200): branch next-glue-probe's plumb alone: `synth --only kernels
# --rows 1` twice for its glue probes (one-row 4096-wide kernels in a LaunchQueue chain: a copy, a copy times
# weights loaded after or before the PDL wait, a sum of squares, a norm with weights before the wait) beside the
# launch chains, and main's rms_norm kernel with one part changed a variant.
set -uo pipefail
source tools/device/call_start.sh
E=plumb
for i in 1 2; do
  timeout -k 5 150 $B/$E synth --only kernels --rows 1 > $R/kernels-$i.txt 2>&1; echo "rc=$? t=$SECONDS"
  grep -E "copy band|chain|probe|variant" $R/kernels-$i.txt | tee -a $OUT/probes.txt
done
tar -czf $OUT/call.tgz -C $R .
echo "t=$SECONDS"
