#!/usr/bin/env bash
# Prepared in session 33 for the next session (carry [".device"], timeout_s 580): glue kernels of fixed shape, the
# lead session 33's rms_norm opened (2.8 -> 1.6 us a one-row norm in a chain, the round -1.25% at one row). Set up on
# main (clean tree):
#   git checkout -b next-glue-fixed && git apply docs/receipts/data/2026-12-02-session33/next/glue-fixed.patch &&
#   git commit -qam "glue kernels of fixed shape" && git checkout main
#   rm -f .device/bin/* && scripts/device-bundle-ab next-glue-fixed -- test_dsv4_forward
#   rm -f .device/bin/test_dsv4_forward.gz && tools/device/slim_tree.sh out     (then `back` after the call)
# The patch: hc_mix and hc_post (PLUMB_HC_FIXED), the experts' combine (PLUMB_COMBINE_FIXED) and act_quant
# (PLUMB_QUANT_FIXED) of fixed shapes, the same sums in the same order; the tiny model (hidden 256, top-2, norms 128
# and 256 wide) runs every one of them, so its bits test them. The call: bits against main with everything on and
# with each switch off; the CUDA tests; the contract entries of the mHC ops (their 4 x 64 shape runs the fixed
# kernels with the planted controls, the release shape against the oracle), of the FP8 linear (act_quant) and of
# the experts (combine); the chains both ways; then the round, everything on against everything off, until t = 520 s.
set -uo pipefail
source tools/device/call_start.sh
E=plumb-next-glue-fixed H=PLUMB_HC_FIXED C=PLUMB_COMBINE_FIXED Q=PLUMB_QUANT_FIXED
bits_against_main $E $E@$H=0 $E@$C=0 $E@$Q=0
cuda_checks test_dsv4_forward-next-glue-fixed $E mhc_pre "-"
for entry in mhc_pre_weights mhc_pre_norm mhc_post mhc_head fp8_linear_cuda fp4_experts_cuda; do
  echo "$(timeout -k 5 60 $B/$E contract --backend cuda --only $entry 2>&1 | tee $R/contract-$entry.txt | grep -E "^$entry")"
done | tee -a $R/tests.txt $OUT/tests.txt
for v in "-" "$H=0 $C=0 $Q=0"; do
  env $(settings_env "$v") timeout -k 5 80 $B/$E synth --only kernels --rows 1 > "$R/kernels-$(settings_tag "$v").txt" 2>&1
  echo "$v"; grep -E "chain" "$R/kernels-$(settings_tag "$v").txt"
done | tee -a $OUT/classes.txt
echo "t=$SECONDS"
STOP_AFTER=$((520 - SECONDS)) OUT=$R bash tools/device/alternate.sh $E $E@$H=0,$C=0,$Q=0 > /dev/null
cp $R/medians.txt $OUT/; cat $R/medians.txt
tar -czf $OUT/call.tgz -C $R .
echo "t=$SECONDS"
