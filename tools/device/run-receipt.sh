#!/usr/bin/env bash
# On the GPU machine (device tool), from the repo root with .device/ (scripts/device-bundle test_dsv4_forward) and
# .device-node/ (scripts/device-bundle-node) carried: everything a CUDA receipt holds in one call. When
# .device/bin/plumb-old (an earlier build) and .device/ids.txt (comma-separated token ids < 1024) are there too,
# first checks that both builds give bit-identical tiny-model logits and MTP logits at chunk 1 and 16. Then the
# contract, the CUDA forward and engine tests, the openai e2e tests on CUDA, per-kernel device times
# (PLUMB_CUDA_KERNEL_TIMES=1), the layers with CUDA graphs off, plumb synth (graphs on, the default) with its JSON,
# and the torch peer; outputs under $OUT.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; B=.device/bin; OUT=${OUT:-/tmp/out}; SECONDS=0
bash tools/device/unpack.sh  # the binaries and libraries unzipped; with .device-node/, node under /tmp/node
mkdir -p "$OUT"; : > "$OUT/checks.txt"
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; $B/plumb version; date -u; } > $OUT/gpu.txt 2>&1; cat $OUT/gpu.txt
if [ -x $B/plumb-old ] && [ -f .device/ids.txt ]; then
  I=$(cat .device/ids.txt)
  for b in plumb-old plumb; do for c in 1 16; do $B/$b logits --backend cuda --ids "$I" --chunk $c --out /tmp/$b-$c.bin --mtp-out /tmp/$b-$c.mtp --json /tmp/$b-$c.json >/dev/null 2>&1 || echo "$b $c failed"; done; done
  { echo "old: $($B/plumb-old version)"; for c in 1 16; do cmp /tmp/plumb-old-$c.bin /tmp/plumb-$c.bin && cmp /tmp/plumb-old-$c.mtp /tmp/plumb-$c.mtp && echo "chunk $c: logits and mtp bit-identical to old"; done; cmp /tmp/plumb-1.bin /tmp/plumb-16.bin && cmp /tmp/plumb-1.mtp /tmp/plumb-16.mtp && echo "chunk 1 == chunk 16"; } >> $OUT/checks.txt 2>&1
fi
timeout -k 5 200 $B/plumb contract --backend cuda --json $OUT/contract-cuda.json > /tmp/contract.txt 2>&1; tail -1 /tmp/contract.txt >> $OUT/checks.txt
timeout -k 5 240 $B/test_dsv4_forward --gtest_filter='*cuda*:Cuda*' > /tmp/tests.txt 2>&1; grep -E "^\[  (PASSED|FAILED)|cuda vs cpu|graphs o" /tmp/tests.txt >> $OUT/checks.txt
if [ -d .device-node ]; then
  OUT=/tmp/e2e bash tools/device/e2e.sh openai | grep "^e2e" >> $OUT/checks.txt
fi
cat $OUT/checks.txt; echo "t=$SECONDS"
PLUMB_CUDA_KERNEL_TIMES=1 timeout -k 5 100 $B/plumb synth --only layers --rows 1 --repeats 4 > /tmp/kt.txt 2>&1; sed -n '/kernel (device time)/,$p' /tmp/kt.txt > $OUT/kernel-times.txt; head -24 $OUT/kernel-times.txt
PLUMB_CUDA_GRAPHS=0 timeout -k 5 100 $B/plumb synth --only layers --rows 1 16 --repeats 10 > /tmp/g0.txt 2>&1; grep -v "^layers:\|^I " /tmp/g0.txt > $OUT/layers-graphs-off.txt; grep -E "^43|launches" $OUT/layers-graphs-off.txt; echo "t=$SECONDS"
timeout -k 5 300 $B/plumb synth --json $OUT/synth.json > /tmp/synth.txt 2>&1; grep -v "^layers:\|^I " /tmp/synth.txt > $OUT/synth.txt; grep -E "^experts|^43|^fp8 rows +wq_b|launches" $OUT/synth.txt; echo "t=$SECONDS"
PYTHONUNBUFFERED=1 timeout -k 5 150 python3 tools/device/synth_peer.py $OUT/synth_peer.json > $OUT/synth_peer.txt 2>&1; tail -12 $OUT/synth_peer.txt; echo "t=$SECONDS"
