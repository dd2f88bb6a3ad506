#!/usr/bin/env bash
# Prepared at the end of session 8 for the next session's first device call (carry [".device"]; about 5 minutes).
# main (ef88086) against:
#   next-wo-a-shared-x (60975fc): wo_a's group slice of the activation rows in shared memory;
#   next-fp8-helpers (4f2cbed): the two-launch FP8 kernel written with the fused kernel's helpers (duplicates).
# Both should keep the bits (ab-builds checks them and runs their contracts). First ncu stall reasons of the wo_a
# kernel (dense_linear 256x1x1: 32 us a layer at one row in session 8, 26% of the copy bandwidth) in main and
# shared-x, with their kernel timer lines for it.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
STALLS=$(for r in long_scoreboard short_scoreboard wait math_pipe_throttle mio_throttle lg_throttle not_selected selected barrier dispatch_stall no_instruction branch_resolving membar drain sleeping imc_miss tex_throttle; do printf "smsp__average_warps_issue_stalled_%s_per_issue_active.ratio," $r; done)
for v in plumb plumb-next-wo-a-shared-x; do
  PLUMB_CUDA_GRAPHS=0 timeout -k 5 60 /usr/local/cuda/bin/ncu --clock-control none --kernel-name-base mangled \
    --kernel-name regex:'dense_linear_vector_kernelILi0ELb.ELi4ELi2ELi4' --launch-count 2 \
    --metrics ${STALLS}smsp__inst_executed.sum,gpu__time_duration.sum,smsp__issue_active.avg.per_cycle_active,dram__bytes_read.sum \
    $B/$v synth --only layers --rows 1 --repeats 1 > $OUT/ncu-wo-a-$v.txt 2>&1
  echo "== $v"; grep -E "dense_linear|stalled_(long|wait|lg|short|mio)|inst_executed|duration|issue_active|dram__bytes" $OUT/ncu-wo-a-$v.txt | sed 's/smsp__average_warps_issue_stalled_//' | head -24
  PLUMB_CUDA_KERNEL_TIMES=1 timeout -k 5 60 $B/$v synth --only layers --rows 1 --repeats 4 2>&1 | sed -n '/kernel (device time)/,$p' > $OUT/kernel-times-$v.txt
  grep -E "^dense_linear " $OUT/kernel-times-$v.txt
done
# the experts' gate/up pass (one row): which pipes its instructions issue to, and its SASS opcode counts
PIPES=$(for p in alu fma fmaheavy fmalite fp16 xu lsu uniform adu cbu tensor_op_hmma; do printf "sm__inst_executed_pipe_%s.avg.pct_of_peak_sustained_active," $p; done)
PLUMB_CUDA_GRAPHS=0 timeout -k 5 60 /usr/local/cuda/bin/ncu --clock-control none --kernel-name regex:'experts_pass_kernel' --launch-count 2 \
  --metrics ${PIPES}smsp__inst_executed.sum,gpu__time_duration.sum,smsp__issue_active.avg.per_cycle_active \
  $B/plumb synth --only layers --rows 1 --repeats 1 > $OUT/ncu-experts-pipes.txt 2>&1
grep -E "experts_pass|pipe_|inst_executed.sum|duration|issue_active" $OUT/ncu-experts-pipes.txt | head -40
PLUMB_CUDA_GRAPHS=0 timeout -k 5 60 /usr/local/cuda/bin/ncu --clock-control none --kernel-name regex:'experts_pass_kernel' --launch-count 1 \
  --metrics sass__inst_executed_per_opcode --print-metric-instances values \
  $B/plumb synth --only layers --rows 1 --repeats 1 > $OUT/ncu-experts-opcodes.txt 2>&1
grep -E "experts_pass|opcode" $OUT/ncu-experts-opcodes.txt | cut -c1-1500 | head -8
echo "t=$SECONDS"
LIGHT=1 AB="plumb plumb-next-wo-a-shared-x plumb-next-fp8-helpers" timeout -k 5 400 bash tools/device/ab-builds.sh
echo "t=$SECONDS"
