#!/usr/bin/env bash
# Prepared in session 33 for the next session (carry [".device"], timeout_s 560). Set up on main (clean tree):
#   git checkout -b next-hc-fixed && git apply docs/receipts/data/2026-12-02-session33/next/hc-fixed.patch &&
#   git commit -qam "hc_mix and hc_post of fixed shapes (PLUMB_HC_FIXED)" && git checkout main
#   rm -f .device/bin/* && scripts/device-bundle-ab next-hc-fixed -- test_dsv4_forward
#   rm -f .device/bin/test_dsv4_forward.gz && tools/device/slim_tree.sh out   (then `back` after the call)
# Checks the branch's bits against main with PLUMB_HC_FIXED on and off (the tiny model's hidden 256 takes hc_mix's
# N = 4 and hc_post's D = 256), its CUDA tests and the mHC contract entries (the 4 x 64 shape runs the fixed kernels
# with their planted controls; the release 4 x 4096 shape N = 64 and D = 4096 against the oracle), the hc chains of
# `synth --only kernels` both ways, then alternates the round against the switch off until t = 500 s.
set -uo pipefail
source tools/device/call_start.sh
E=plumb-next-hc-fixed F=PLUMB_HC_FIXED
bits_against_main $E $E@$F=0
cuda_checks test_dsv4_forward-next-hc-fixed $E mhc_pre "-"
for entry in mhc_pre_weights mhc_pre_norm mhc_post mhc_head; do
  echo "$(timeout -k 5 60 $B/$E contract --backend cuda --only $entry 2>&1 | tee $R/contract-$entry.txt | grep -E "^$entry")"
done | tee -a $R/tests.txt $OUT/tests.txt
for v in "-" "$F=0"; do
  env $(settings_env "$v") timeout -k 5 80 $B/$E synth --only kernels --rows 1 > "$R/kernels-$(settings_tag "$v").txt" 2>&1
  echo "$v"; grep -E "chain" "$R/kernels-$(settings_tag "$v").txt"
done | tee -a $OUT/classes.txt
STOP_AFTER=$((500 - SECONDS)) OUT=$R bash tools/device/alternate.sh $E $E@$F=0 > /dev/null
cp $R/medians.txt $OUT/; cat $R/medians.txt
tar -czf $OUT/call.tgz -C $R .
echo "t=$SECONDS"
