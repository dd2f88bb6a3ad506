#!/usr/bin/env bash
# Session 14 call 2 (carry [".device"], timeout_s 580). Built here:
#   scripts/device-bundle-ab next-l2-prefetch -- test_dsv4_forward; gzip .device/bin/plumb-* .device/bin/test_dsv4_forward*
# A = main 3985914 (four-rows8 merged). next-l2-prefetch (044ad24): Backend::prefetch into the L2 at the plan's
# points (PLUMB_L2_PREFETCH_PLAN, default qos), the shared expert before the routed ones, and the experts' gate/up
# pass prefetching the down weights (PLUMB_EXPERTS_DOWN_PREFETCH_MB, default 32). Variants of it by its switches.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
python3 -c "import torch; p = torch.cuda.get_device_properties(0); print('L2 bytes', p.L2_cache_size)" 2>/dev/null
P=plumb-next-l2-prefetch
OFF="$P@PLUMB_L2_PREFETCH=0,PLUMB_EXPERTS_DOWN_PREFETCH_MB=0"
NODOWN="$P@PLUMB_EXPERTS_DOWN_PREFETCH_MB=0"
DOWNONLY="$P@PLUMB_L2_PREFETCH=0"
WOB="$P@PLUMB_L2_PREFETCH_PLAN=qosb"
CONTRACTS="$P" LIGHT=1 SETTINGS_KERNELS=1 AB="plumb $P $OFF $NODOWN $DOWNONLY $WOB" bash tools/device/ab-builds.sh
R=$(mktemp -d)
echo "$P CUDA tests: $(timeout -k 5 120 $B/test_dsv4_forward-next-l2-prefetch --gtest_filter='*cuda*:Cuda*' 2>&1 | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')" | tee $R/tests.txt
echo "t=$SECONDS"
cmd() { local e=""; [[ $1 == *@* ]] && e=${1#*@}; echo "env ${e//,/ } $B/${1%%@*}"; }
for rep in 1 2; do for v in plumb "$P" "$OFF" "$NODOWN" "$WOB"; do
  t=${v//[@=,]/_}
  timeout -k 5 60 $(cmd $v) synth --only layers --rows 1 4 8 16 --repeats 10 > $R/layers-$t-$rep.txt 2>&1
  echo "$v rep $rep: $(grep -E '^43-layer round +1 slot, as drawn' $R/layers-$t-$rep.txt | awk '{printf "%s ", $(NF-3)}')| 4 slots $(grep -E '^43-layer round +4 slots, as drawn' $R/layers-$t-$rep.txt | awk '{print $(NF-3)}')"
done; done | tee $R/rounds.txt
echo "t=$SECONDS"
for v in plumb "$P"; do t=${v//[@=,]/_}
  PLUMB_CUDA_KERNEL_TIMES=1 timeout -k 5 60 $(cmd $v) synth --only layers --rows 1 --repeats 4 > $R/kt-$t.txt 2>&1
  sed -n '/kernel (device time)/,$p' $R/kt-$t.txt > $R/kernel-times-$t.txt; echo "-- $v"; head -24 $R/kernel-times-$t.txt
done | tee $R/kernel-times-summary.txt
tar -czf $OUT/call2-extra.tgz -C $R .; cp $R/tests.txt $R/rounds.txt $R/kernel-times-summary.txt $OUT/
echo "t=$SECONDS"
