#!/usr/bin/env bash
# Session 11 call 6: main at 195b74a's kernel classes and the torch peer (tools/device/synth_peer.py) in one run.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; R=$(mktemp -d)
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; .device/bin/plumb version; date -u; } | tee $R/gpu.txt
timeout -k 5 120 .device/bin/plumb synth --only kernels --rows 1 2 4 8 16 --repeats 20 --json $R/kernels.json > $R/kernels.txt 2>&1
grep -E "^(fp8 rows|experts)" $R/kernels.txt | grep -E " (1|8) "
PYTHONUNBUFFERED=1 timeout -k 5 150 python3 tools/device/synth_peer.py $R/synth_peer.json > $R/synth_peer.txt 2>&1; tail -24 $R/synth_peer.txt
tar -czf $OUT/call6.tgz -C $R .
echo "t=$SECONDS"
