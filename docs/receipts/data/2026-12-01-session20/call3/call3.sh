#!/usr/bin/env bash
# Session 20 call 3 (carry [".device"], timeout_s 595): next-hc-mix-staged (hc_mix's two 64 KB rows copied into
# shared memory by the bulk copy engine, the weights before the PDL wait; PLUMB_HC_MIX_STAGED) against its switch
# off. hc_mix ran 6.0-6.7 us a launch under ncu at one row (session 17), 86 launches a round.
# Built with: scripts/device-bundle-ab next-hc-mix-staged -- test_dsv4_forward (main's test binary removed).
# Answers: bits against main (switch on and off), the contract, the CUDA tests, ncu's duration of hc_mix staged and
# not at 1 and 4 rows, and the round alternating the switch on and off, the order rotated.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/gpu.txt
E=plumb-next-hc-mix-staged; S=PLUMB_HC_MIX_STAGED
VARIANTS="$E $E@$S=0"
CONTRACTS="$E" LIGHT=1 KERNELS=0 AB="plumb $VARIANTS" bash tools/device/ab-builds.sh
echo "t=$SECONDS"
R=$(mktemp -d)
echo "next-hc-mix-staged CUDA tests: $(timeout -k 5 200 $B/test_dsv4_forward-next-hc-mix-staged --gtest_filter='*cuda*:Cuda*' 2>&1 | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')" | tee $R/tests.txt
$B/$E contract --backend cuda --only mhc_pre 2>&1 | tail -3 | tee -a $R/tests.txt
cp $R/tests.txt $OUT/
NCU="/usr/local/cuda/bin/ncu --clock-control none --metrics gpu__time_duration.sum"
for run in "$E 1" "$E@$S=0 1" "$E 4" "$E@$S=0 4"; do
  read -r v rows <<< "$run"; t=${v//[@=,]/_}; e=""; [[ $v == *@* ]] && e=${v#*@}
  env $e PLUMB_CUDA_GRAPHS=0 timeout -k 5 60 $NCU --kernel-name regex:"hc_mix" --launch-skip 20 --launch-count 8 \
    $B/${v%%@*} synth --only layers --rows $rows --repeats 1 --config .device/csa-config.json > $R/ncu-$t-$rows.txt 2>&1
  echo "-- $v, $rows rows: $(grep -E "gpu__time_duration" $R/ncu-$t-$rows.txt | awk '{printf "%s ", $NF}')"
done | tee $R/ncu-summary.txt
cp $R/ncu-summary.txt $OUT/
echo "t=$SECONDS"
cmd() { local e=""; [[ $1 == *@* ]] && e=${1#*@}; echo "env ${e//,/ } $B/${1%%@*}"; }
read -r -a V <<< "$VARIANTS"
for rep in $(seq 1 24); do
  for i in $(seq 0 $((${#V[@]} - 1))); do v=${V[$(( (i + rep) % ${#V[@]} ))]}; t=${v//[@=,]/_}
    timeout -k 5 60 $(cmd $v) synth --only layers --rows 1 4 16 --repeats 10 > $R/layers-$t-$rep.txt 2>&1
    echo "$v rep $rep: $(grep -E '^43-layer round +1 slot, as drawn' $R/layers-$t-$rep.txt | awk '{printf "%s ", $(NF-3)}')| 4 slots $(grep -E '^43-layer round +4 slots, as drawn' $R/layers-$t-$rep.txt | awk '{print $(NF-3)}')"
  done; echo "t=$SECONDS"; [[ $SECONDS -gt 470 ]] && break
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
tar -czf $OUT/call3-extra.tgz -C $R .; cp $R/rounds.txt $R/medians.txt $OUT/
echo "t=$SECONDS"
