#!/usr/bin/env bash
# Session 19 call 5 (carry [".device"], timeout_s 300): call 4 again with next-critical-path at f1b0302, whose longest
# chains count only the flushes with lanes (call 4 also counted the op timer's one-op flushes). Which kernels set the
# pace at one row with the lanes side by
# side. next-critical-path is main plus the kernel timer's longest-chain column (critical_path.h); its
# kernels are main's. For the release mix of layers and for configs of 43 CSA, 43 HCA and 43 window layers
# (.device/{csa,hca,window}-config.json, copies beside this script: the release config with every compress ratio
# 4, 128 or 0, top-k MoE; cp docs/receipts/data/2026-12-01-session19/call5/*-config.json .device/ first),
# every kernel is timed alone in order (PLUMB_CUDA_KERNEL_TIMES=1, graphs off), and the tape's orderings give the
# longest chain.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/gpu.txt
P=$B/plumb-next-critical-path
run() {  # NAME ROWS [--config FILE]
  local name=$1 rows=$2; shift 2
  PLUMB_CUDA_KERNEL_TIMES=1 timeout -k 5 90 $P synth --only layers --rows $rows --repeats 4 "$@" > /tmp/kt-$name-$rows.txt 2>&1
  sed -n '/kernel (device time)/,$p' /tmp/kt-$name-$rows.txt > $OUT/kernel-times-$name-$rows.txt
  echo "== $name, $rows rows: $(tail -1 $OUT/kernel-times-$name-$rows.txt)"
  head -25 $OUT/kernel-times-$name-$rows.txt
  echo "t=$SECONDS"
}
run release 1
run csa 1 --config .device/csa-config.json
run hca 1 --config .device/hca-config.json
run window 1 --config .device/window-config.json
run release 16
