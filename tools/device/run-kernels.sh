#!/usr/bin/env bash
# On the GPU machine (device tool), from the repo root with .device/ carried: the CUDA kernel contract, plumb synth
# (kernel classes, then the layers as served and the weighted 43-layer round) and the torch peer column, outputs
# under $OUT.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv | tee "$OUT/gpu.txt"
.device/bin/plumb version | tee -a "$OUT/gpu.txt"
date -u | tee -a "$OUT/gpu.txt"
timeout 300 .device/bin/plumb contract --backend cuda --json "$OUT/contract-cuda.json" 2>&1 | tee "$OUT/contract-cuda.txt"
timeout 240 .device/bin/plumb synth --json "$OUT/synth.json" 2>&1 | tee "$OUT/synth.txt"
PYTHONUNBUFFERED=1 timeout 150 python3 tools/device/synth_peer.py "$OUT/synth_peer.json" 2>&1 | tee "$OUT/synth_peer.txt"
