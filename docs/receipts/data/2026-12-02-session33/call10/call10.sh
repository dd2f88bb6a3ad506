#!/usr/bin/env bash
# Session 33 call 10 (carry [".device"], timeout_s 560): branch next-norm-fixed (rms_norm of fixed widths,
# PLUMB_NORM_FIXED) beside main (scripts/device-bundle-ab next-norm-fixed -- test_dsv4_forward). The branch's bits
# against main's with the switch on and off, its CUDA tests and the rms_norm contract entry, the norm chains in
# synth, then the round alternated against the switch off until t=500 s.
set -uo pipefail
source tools/device/call_start.sh
E=plumb-next-norm-fixed F=PLUMB_NORM_FIXED
bits_against_main $E $E@$F=0
cuda_checks test_dsv4_forward-next-norm-fixed $E rms_norm "-"
for v in "-" "$F=0"; do
  env $(settings_env "$v") timeout -k 5 80 $B/$E synth --only kernels --rows 1 > "$R/kernels-$(settings_tag "$v").txt" 2>&1
  echo "$v"; grep -E "chain" "$R/kernels-$(settings_tag "$v").txt"
done | tee -a $OUT/classes.txt
STOP_AFTER=$((500 - SECONDS)) OUT=$R bash tools/device/alternate.sh $E $E@$F=0 > /dev/null
cp $R/medians.txt $OUT/; cat $R/medians.txt
tar -czf $OUT/call.tgz -C $R .
echo "t=$SECONDS"
