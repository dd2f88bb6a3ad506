#!/usr/bin/env bash
# Session 27 call 4 (carry [".device"], timeout_s 120; the machine still warm from call 3, the same .device): the
# per-multiprocessor spread of the experts passes at ONE row, main's kernels (the spread branch's binary with
# PLUMB_EXPERTS_ITEM_LOOP=1: at one row no pass grid is capped, so these are main's launches), and with every pass
# looped and capped at 264 blocks (two a multiprocessor). Run as one command line; written out here.
source tools/device/call_start.sh >/dev/null
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for v in "PLUMB_EXPERTS_ITEM_LOOP=1" "PLUMB_EXPERTS_ITEM_LOOP=2 PLUMB_EXPERTS_GRID_CAP=264"; do
  echo "== $v"
  env $v timeout -k 5 50 $NCU --clock-control none --cache-control none --kernel-name regex:experts_pass --launch-count 2 \
    --metrics sm__inst_executed.min,sm__inst_executed.max,sm__inst_executed.avg,sm__cycles_active.min,sm__cycles_active.max,gpu__time_duration.sum \
    $B/plumb-next-experts-spread synth --only kernels --rows 1 --repeats 1 2>&1 | grep -E "^  [^ ]|sm__|gpu__" \
    | sed -E 's/\(anonymous namespace\):://g; s/plumb::cuda::(ops::)?//g; s/, Context.*//; s/ +/ /g'
done
echo t=$SECONDS
