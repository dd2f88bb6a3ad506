#!/usr/bin/env bash
# Session 33 call 6 (carry [".device"], timeout_s 300): main as landed, `synth --only layers --rows 1 4 16
# --repeats 10` twice (the alternation's command): the summed rounds and the same rounds in one flush.
set -uo pipefail
source tools/device/call_start.sh
E=plumb
$B/$E version | tee $OUT/version.txt
for i in 1 2; do
  timeout -k 5 120 $B/$E synth --only layers --rows 1 4 16 --repeats 10 --json $R/layers-$i.json > $R/layers-$i.txt 2>&1; echo "rc=$? t=$SECONDS"
  grep -E "round|copy" $R/layers-$i.txt | tee -a $OUT/rounds.txt
done
tar -czf $OUT/call.tgz -C $R .
echo "t=$SECONDS"
