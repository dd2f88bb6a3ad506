#!/usr/bin/env bash
# Prepared at the end of session 9 for the next session's first device call (carry [".device"]; about 8 minutes: run it with timeout_s 600).
# main (1c2a8bf: the code that ran in session 9's call 7, plus the indexer's sort back for rows past 4096 visible
# index rows, NOT yet run on a GPU) against three same-bits experiments:
#   next-logits-one-sync (8023511): attention_logits looks up its first block's keys while the query loads;
#   next-experts-prologue (a4b50c9): the experts passes load the expert id and pair range with the active count;
#   next-pv-prefetch (3441622): attention_pv's one-wave variant double-buffers 32-key batches.
# plumb@PLUMB_INDEXER_COUNT_MAX=0 sends every indexer row through the bitonic sort: its bits must equal main's, and
# the contract must pass both ways (the fingerprint to expect is cf824e82009a0f99).
# First the experts passes' stall reasons on main (session 9 call 1: no pipe saturated, issue active 0.41-0.51), then
# ab-builds (bits, contracts, synth), then the torch peer for the FP8 linears.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
STALLS=$(for r in long_scoreboard short_scoreboard wait math_pipe_throttle mio_throttle lg_throttle not_selected selected barrier dispatch_stall no_instruction branch_resolving drain; do printf "smsp__average_warps_issue_stalled_%s_per_issue_active.ratio," $r; done)
PLUMB_CUDA_GRAPHS=0 timeout -k 5 90 /usr/local/cuda/bin/ncu --clock-control none --kernel-name regex:'experts_pass_kernel' --launch-count 2 \
  --metrics ${STALLS}smsp__warps_active.avg.per_cycle_active,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__occupancy_limit_registers,smsp__inst_executed.sum,gpu__time_duration.sum,smsp__issue_active.avg.per_cycle_active,dram__bytes_read.sum \
  $B/plumb synth --only layers --rows 1 --repeats 1 > $OUT/ncu-experts-stalls.txt 2>&1
grep -E "experts_pass|stalled_(long|short|wait|math|mio|lg|not_sel|branch|no_inst)|warps_active|registers|occupancy|duration|issue_active|dram" $OUT/ncu-experts-stalls.txt | sed 's/smsp__average_warps_issue_stalled_//' | head -40
echo "t=$SECONDS"
echo "main contract: $(timeout -k 5 150 $B/plumb contract --backend cuda 2>&1 | tail -1)"
echo "main contract, every indexer row sorted: $(PLUMB_INDEXER_COUNT_MAX=0 timeout -k 5 150 $B/plumb contract --backend cuda 2>&1 | tail -1)"
for v in plumb plumb-next-pv-prefetch; do  # attention at one CSA row: P.V was 26.6-27.2 us in session 9
  PLUMB_CUDA_GRAPHS=0 timeout -k 5 60 /usr/local/cuda/bin/ncu --clock-control none --kernel-name regex:'attention' --launch-count 6 \
    --metrics gpu__time_duration.sum $B/$v synth --only layers --rows 1 --repeats 1 --config .device/csa-config.json > $OUT/ncu-attention-$v.txt 2>&1
  echo "-- $v"; grep -E "Context|duration" $OUT/ncu-attention-$v.txt | paste - - | sed -E 's/ +/ /g' | cut -c1-60,200- | head -6
done
LIGHT=1 AB="plumb plumb@PLUMB_INDEXER_COUNT_MAX=0 plumb-next-logits-one-sync plumb-next-experts-prologue plumb-next-pv-prefetch" timeout -k 5 420 bash tools/device/ab-builds.sh
echo "t=$SECONDS"
timeout -k 5 120 $B/plumb synth --only kernels --rows 1 2 4 8 --repeats 20 --json $OUT/synth-kernels.json > $OUT/synth-kernels.txt 2>&1
timeout -k 5 120 python3 tools/device/synth_peer.py $OUT/peer.json > $OUT/peer.txt 2>&1; tail -30 $OUT/peer.txt
echo "t=$SECONDS"
