#!/usr/bin/env bash
# Session 25, call 7 (carry [".device"], timeout_s 330): FP8 weights in 2 KiB tiles (branch next-fp8-tiled, one
# commit on main; scripts/device-bundle-ab next-fp8-tiled). Call 6 had wq_b and wo_b at one row stalled on long
# scoreboard (6.7-7.1 a issued instruction), where each warp step reads 16 rows' 128 bytes 1 KiB or more apart.
# Answers: production bits against main (production keeps row-major weights, the kernels now read them through byte
# strides); the whole contract; then synth's FP8 classes row-major and tiled in one binary, the same code, with
# the outputs compared byte for byte.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
R=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt
E=plumb-next-fp8-tiled
CONTRACTS="none" LIGHT=1 KERNELS=0 AB="plumb $E" OUT=/tmp/ab bash tools/device/ab-builds.sh > /dev/null
cp /tmp/ab/checks.txt $R/bits.txt; cat $R/bits.txt | tee $OUT/bits.txt; echo "t=$SECONDS"
timeout -k 5 120 $B/$E contract --backend cuda > $R/contract.txt 2>&1
grep -E "^(fp8|dense|shared)|SUMMARY" $R/contract.txt | tee $R/tests.txt $OUT/tests.txt
echo "t=$SECONDS"
timeout -k 5 120 $B/$E synth --only kernels --rows 1 2 4 8 16 > $R/kernels.txt 2> $R/kernels.err
{ grep -E "^fp8 rows" $R/kernels.txt; grep -E "fp8 tiled" $R/kernels.err; } | tee $R/classes.txt $OUT/classes.txt
tar -czf $OUT/call.tgz -C $R .
echo "t=$SECONDS"
