#!/usr/bin/env bash
# Session 20 call 1 (carry [".device"], timeout_s 595): next-rope-quant (Backend::rope_quant_sim; on CUDA the rope,
# the Hadamard and the FP4/FP8 rounding of the indexer's query, the compressed rows and the window's KV rows in one
# launch, PLUMB_FUSED_ROPE_QUANT) against main (ea95823) and against its own switch off.
# Built with: scripts/device-bundle-ab next-rope-quant -- test_dsv4_forward (main's test binary removed); needs
# session 19 call 5's CSA config in .device/ (cp docs/receipts/data/2026-12-01-session19/call5/csa-config.json .device/).
# Answers: bits against main (switch on and off), the contract, the CUDA tests, the CSA layer's chain at one row
# with the switch on and off, and the round at 1, 4 and 16 rows and 4 slots alternating the switch on and off, the
# order rotated (main's binary only in the bit check: session 19 found a build's own switch the fair comparison).
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/gpu.txt
E=plumb-next-rope-quant; S=PLUMB_FUSED_ROPE_QUANT
VARIANTS="$E $E@$S=0"
CONTRACTS="$E" LIGHT=1 KERNELS=0 AB="plumb $VARIANTS" bash tools/device/ab-builds.sh
echo "t=$SECONDS"
R=$(mktemp -d)
echo "next-rope-quant CUDA tests: $(timeout -k 5 200 $B/test_dsv4_forward-next-rope-quant --gtest_filter='*cuda*:Cuda*' 2>&1 | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')" | tee $R/tests.txt
$B/$E contract --backend cuda --only rope_quant_sim 2>&1 | tail -8 | tee -a $R/tests.txt
$B/$E contract --backend cuda --only rope_quant_sim_kv 2>&1 | tail -4 | tee -a $R/tests.txt
cp $R/tests.txt $OUT/
for sw in 1 0; do
  env $S=$sw PLUMB_CUDA_KERNEL_TIMES=2 timeout -k 5 60 $B/$E synth --only layers --rows 1 --repeats 2 \
    --config .device/csa-config.json > /tmp/kt-$sw.txt 2>&1
  sed -n '/kernel (device time)/,$p' /tmp/kt-$sw.txt > $OUT/chains-csa-switch$sw.txt
  echo "csa switch $sw: $(tail -1 $OUT/chains-csa-switch$sw.txt)"
done
echo "t=$SECONDS"
cmd() { local e=""; [[ $1 == *@* ]] && e=${1#*@}; echo "env ${e//,/ } $B/${1%%@*}"; }
read -r -a V <<< "$VARIANTS"
for rep in $(seq 1 24); do
  for i in $(seq 0 $((${#V[@]} - 1))); do v=${V[$(( (i + rep) % ${#V[@]} ))]}; t=${v//[@=,]/_}
    timeout -k 5 60 $(cmd $v) synth --only layers --rows 1 4 16 --repeats 10 > $R/layers-$t-$rep.txt 2>&1
    echo "$v rep $rep: $(grep -E '^43-layer round +1 slot, as drawn' $R/layers-$t-$rep.txt | awk '{printf "%s ", $(NF-3)}')| 4 slots $(grep -E '^43-layer round +4 slots, as drawn' $R/layers-$t-$rep.txt | awk '{print $(NF-3)}')"
  done; echo "t=$SECONDS"; [[ $SECONDS -gt 540 ]] && break
done | tee $R/rounds.txt
python3 - $R/rounds.txt "$E" "$S" <<'PY' | tee $R/medians.txt
import re, statistics as st, sys
d = {}
for line in open(sys.argv[1]):
    m = re.match(r'(\S+) rep (\d+): ([\d.]+) ([\d.]+) ([\d.]+) \| 4 slots ([\d.]+)', line)
    if m: d.setdefault(m.group(1), {})[int(m.group(2))] = [float(m.group(i)) for i in range(3, 7)]
for k, v in d.items():
    print(f"{k:40s} medians: " + "  ".join(f"{st.median(c):9.1f}" for c in zip(*v.values())) + f"   (1 / 4 / 16 rows | 4 slots; {len(v)} runs)")
def wins(a, b):
    reps = sorted(set(a) & set(b))
    return [sum(a[r][c] < b[r][c] for r in reps) for c in range(4)], len(reps)
E, S = sys.argv[2], sys.argv[3]
off = f"{E}@{S}=0"
for other in ("plumb", off):
    if E in d and other in d:
        w, n = wins(d[E], d[other]); print(f"{E} won against {other}: {w} of {n}")
if "plumb" in d and off in d:
    w, n = wins(d[off], d["plumb"]); print(f"switch off won against main (the same arithmetic and order): {w} of {n}")
PY
tar -czf $OUT/call1-extra.tgz -C $R .; cp $R/rounds.txt $R/medians.txt $OUT/
echo "t=$SECONDS"
