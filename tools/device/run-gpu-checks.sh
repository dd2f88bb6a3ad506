#!/usr/bin/env bash
# On the GPU machine (device tool), from the repo root with .device/ (scripts/device-bundle test_dsv4_forward) and
# .device-node/ (scripts/device-bundle-node) carried: the kernel contract on the CUDA backend, the forward and engine
# exactness tests on CUDA, CUDA vs CPU release logits, and the openai-client end-to-end tests against
# `plumb serve` (auto picks CUDA there). Outputs under $OUT.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib
bash tools/device/unpack.sh  # the binaries and libraries unzipped; node and the openai client under /tmp/node
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; .device/bin/plumb version; date -u; } > "$OUT/gpu.txt" 2>&1
timeout 300 .device/bin/plumb contract --backend cuda --json "$OUT/contract-cuda.json" > "$OUT/contract-cuda.txt" 2>&1
timeout 240 .device/bin/test_dsv4_forward --gtest_filter='*cuda*:Cuda*' > "$OUT/cuda-tests.txt" 2>&1
.device/bin/plumb run --ids 1,2,3,4,5 -n 8 --temperature 0 --json > "$OUT/run-auto.json" 2>&1
OUT=$OUT bash tools/device/e2e.sh openai > "$OUT/e2e-summary.txt" 2>&1  # its TAP output in $OUT/e2e-openai.txt
cat "$OUT/gpu.txt"; tail -1 "$OUT/contract-cuda.txt"; grep -E "^\[  (PASSED|FAILED|SKIPPED)|cuda vs cpu" "$OUT/cuda-tests.txt"
cat "$OUT/run-auto.json"; cat "$OUT/e2e-summary.txt"
