#!/usr/bin/env bash
# Session 22, call 3 (carry [".device"], timeout_s 560): the nt2-bound build (next-nt2-bounds, switch on: what main
# becomes when it merges) through the whole plumb synth with its JSON, the torch peer in the same run, and the whole
# contract. Binaries from call 1's bundle (scripts/device-bundle-ab next-nt2-bounds next-fp8-even).
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do [[ -e $f ]] && gunzip -f "$f"; done; chmod +x $B/*
R=$(mktemp -d); E=$B/plumb-next-nt2-bounds
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; $E version; date -u; } | tee $R/gpu.txt
timeout -k 5 300 $E synth --json $R/synth.json > /tmp/synth.txt 2>&1; grep -v "^layers:\|^I " /tmp/synth.txt > $R/synth.txt
grep -E "^experts|^43|^fp8 rows|^copy|floor" $R/synth.txt; echo "t=$SECONDS"
PYTHONUNBUFFERED=1 timeout -k 5 120 python3 tools/device/synth_peer.py $R/synth_peer.json > $R/synth_peer.txt 2>&1; tail -14 $R/synth_peer.txt; echo "t=$SECONDS"
timeout -k 5 $((540 - SECONDS)) $E contract --backend cuda --json $R/contract-cuda.json > $R/contract.txt 2>&1; tail -1 $R/contract.txt
tar -czf $OUT/call.tgz -C $R .
cp $R/synth.txt $R/synth_peer.txt $OUT/
echo "t=$SECONDS"
