#!/usr/bin/env bash
# Session 25, call 3 (carry [".device", ".device-node"], timeout_s 600): main 9b8110f's plumb, bundled with
# scripts/device-bundle && scripts/device-bundle-node. Answers: the end-to-end server tests on CUDA
# (tools/device/e2e.sh: the openai client against `plumb serve`, each reply's token_sha256 against `plumb run`
# alone, and the 64-client load test); then each kernel's own time in one layer of each kind at one row (ncu, graphs
# off, tools/device/ncu_layer_table.py) beside the layer's time as served (synth, graphs on), so the gap between
# the kernels' sum and the layer shows what launches and dependencies cost.
set -uo pipefail
SECONDS=0; R=$(mktemp -d); B=.device/bin
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt
OUT=$R/e2e bash tools/device/e2e.sh 2>&1 | tee $R/e2e.txt $OUT/e2e.txt
echo "t=$SECONDS"
export LD_LIBRARY_PATH=$PWD/.device/lib
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for kind in window csa hca; do
  PLUMB_CUDA_GRAPHS=0 timeout -k 5 100 $NCU --clock-control none --launch-count 130 --csv --metrics gpu__time_duration.sum \
    $B/plumb synth --only layers --rows 1 --repeats 1 --config .device/$kind-config.json 2> $R/ncu-$kind.err | gzip > $R/ncu-$kind.csv.gz
  python3 tools/device/ncu_layer_table.py $R/ncu-$kind.csv.gz --list --json $R/layer-$kind.json > $R/layer-$kind.txt 2>&1
  timeout -k 5 60 $B/plumb synth --only layers --rows 1 --config .device/$kind-config.json > $R/synth-$kind.txt 2>&1
  echo "== $kind"; sed -n "/launches/,\$p" $R/layer-$kind.txt; grep -E "^layer|^[0-9]+-layer" $R/synth-$kind.txt
done | tee $R/layers.txt $OUT/layers.txt
echo "t=$SECONDS"
tar -czf $OUT/call.tgz -C $R .
