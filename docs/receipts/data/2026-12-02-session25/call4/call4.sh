#!/usr/bin/env bash
# Session 25, call 4 (carry [".device"], timeout_s 400): what the down pass's two K splits did to the experts' passes
# at one row, which call 2 measured only inside the round (its class and timer runs set PLUMB_EXPERTS_DOWN_BLOCKS to
# the empty string, which env_int reads as 0, so they ran four blocks a multiprocessor, 1.45 waves). Binaries: main
# 9b8110f and next-down-split2 (scripts/device-bundle-ab next-down-split2). Answers: ncu of the first two
# experts_pass launches (gate/up, down) in a window layer at one row, for main, two splits at six blocks and at
# four; the experts' kernel classes with two splits at six blocks.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
R=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt
E=plumb-next-down-split2 NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for v in "plumb PLUMB_NONE=1" "$E PLUMB_EXPERTS_DOWN_BLOCKS=6" "$E PLUMB_EXPERTS_DOWN_BLOCKS=4"; do
  set -- $v; t="$1-${2//=/-}"
  env $2 PLUMB_CUDA_GRAPHS=0 timeout -k 5 100 $NCU --clock-control none --kernel-name regex:experts_pass --launch-count 2 \
    --section SpeedOfLight --section WarpStateStats --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis \
    --metrics smsp__inst_executed.sum,smsp__cycles_active.avg \
    $B/$1 synth --only layers --rows 1 --repeats 1 --config .device/window-config.json > "$R/ncu-$t.txt" 2>&1
  echo "== $t"
  grep -E "^  [^ ]|Duration|Grid Size|Registers Per|Achieved Occupancy|Theoretical Occupancy|DRAM Throughput|Issued Ipc|Warp Cycles Per Issued|inst_executed.sum|Stall Long|No Eligible|L2 Hit" "$R/ncu-$t.txt" | sed -E 's/\(anonymous namespace\):://g; s/plumb::cuda::(ops::)?//g; s/\(PassArgs\)//; s/, Context.*//; s/ +/ /g'
done | tee $R/ncu-summary.txt $OUT/ncu-summary.txt
echo "t=$SECONDS"
PLUMB_EXPERTS_DOWN_BLOCKS=6 timeout -k 5 80 $B/$E synth --only kernels > $R/kernels-6blocks.txt 2>&1
grep -E "^experts" $R/kernels-6blocks.txt | tee $R/classes.txt $OUT/classes.txt
tar -czf $OUT/call.tgz -C $R .
echo "t=$SECONDS"
