#!/usr/bin/env bash
# Session 27 call 2 (carry [".device"], timeout_s 420): main with the dynamic experts grid merged (built with
# scripts/device-bundle). Answers: the kernel classes beside the torch peer in the same run; ncu of each experts
# launch of the "same 6 experts" class at 1, 2 and 16 rows (call 1's ncu matched the FP8 classes' act_quant
# launches instead: why do 2 rows take 49 us against 41 at one, and where do 16 rows' 66 us go?).
set -uo pipefail
source tools/device/call_start.sh
timeout -k 5 80 $B/plumb synth --only kernels > $R/kernels.txt 2>&1
PYTHONUNBUFFERED=1 timeout -k 5 120 python3 tools/device/synth_peer.py $R/synth_peer.json > $R/synth_peer.txt 2>&1
{ grep -E "^(fp8 rows|dense fp8|experts)|copy band" $R/kernels.txt
  grep -E "^torch" $R/synth_peer.txt; } | tee $R/classes.txt $OUT/classes.txt
echo "t=$SECONDS"
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for rows in 1 2 16; do
  n=8; ((rows > 8)) && n=12  # two calls of the same-6 cell: its first warm-up replays (4 launches a call, 6 by size)
  timeout -k 5 90 $NCU --clock-control none --cache-control none \
    --kernel-name regex:"prepare_experts|experts_pass|combine_kernel" --launch-count $n \
    --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats \
    --metrics smsp__inst_executed.sum,dram__sectors_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum \
    $B/plumb synth --only kernels --rows $rows --repeats 1 > "$R/ncu-experts-rows$rows.txt" 2>&1
  echo "== rows $rows"
  grep -E "^  [^ ]|Duration|DRAM Throughput|Grid Size|Achieved Occupancy|Warp Cycles Per Issued|inst_executed.sum|dram__sectors_read|srcunit_tex" "$R/ncu-experts-rows$rows.txt" \
    | sed -E 's/\(anonymous namespace\):://g; s/plumb::cuda::(ops::)?//g; s/\(PassArgs\)//; s/, Context.*//; s/ +/ /g; s/experts_detail:://g'
done > $R/ncu-summary.txt
cp $R/ncu-summary.txt $OUT/
grep -E "^==|^ [a-z_]+|Duration" $R/ncu-summary.txt | sed -E 's/<.*>//' | head -80
tar -czf $OUT/call.tgz -C $R .
echo "t=$SECONDS"
