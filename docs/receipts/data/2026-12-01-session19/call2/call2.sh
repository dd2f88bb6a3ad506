#!/usr/bin/env bash
# Session 19 call 2 (carry [".device"], timeout_s 590): next-normq (c3edc50: q_norm's FP8 quantization in its
# launch for wq_b, PLUMB_FUSED_NORM_QUANT) and next-mix-pre2 (session 18's prepared patch: hc_mix and hc_pre_norm in
# one launch with hc_pre's constants and the norm's weights loaded before the wait in every block,
# PLUMB_FUSED_HC_MIX) against main (a136915). Call 1's next-both (normq with the experts' h quantized by their
# gate/up pass) lost or did not move the round within that call's drift, so normq runs alone here, with more
# alternations and the variants' order rotated each repetition.
# Built with: scripts/device-bundle-ab next-normq next-mix-pre2 -- test_dsv4_forward (main's test binary removed).
# Answers: bits (switches on and off), mix-pre2's contract and CUDA tests (normq's ran in call 1), and the round at 1, 4 and 16 rows and 4 slots
# alternating against main and each switch off.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/gpu.txt
N=plumb-next-normq M=plumb-next-mix-pre2
VARIANTS="plumb $N $N@PLUMB_FUSED_NORM_QUANT=0 $M $M@PLUMB_FUSED_HC_MIX=0"
CONTRACTS="$M" LIGHT=1 KERNELS=0 AB="$VARIANTS" bash tools/device/ab-builds.sh
echo "t=$SECONDS"
R=$(mktemp -d)
for b in next-mix-pre2; do  # normq's tests and contract ran in call 1 (as part of next-both)
  echo "$b CUDA tests: $(timeout -k 5 200 $B/test_dsv4_forward-$b --gtest_filter='*cuda*:Cuda*' 2>&1 | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')"
done | tee $R/tests.txt
cp $R/tests.txt $OUT/
echo "t=$SECONDS"
cmd() { local e=""; [[ $1 == *@* ]] && e=${1#*@}; echo "env ${e//,/ } $B/${1%%@*}"; }
read -r -a V <<< "$VARIANTS"
for rep in $(seq 1 14); do
  for i in $(seq 0 $((${#V[@]} - 1))); do v=${V[$(( (i + rep) % ${#V[@]} ))]}; t=${v//[@=,]/_}
    timeout -k 5 60 $(cmd $v) synth --only layers --rows 1 4 16 --repeats 10 > $R/layers-$t-$rep.txt 2>&1
    echo "$v rep $rep: $(grep -E '^43-layer round +1 slot, as drawn' $R/layers-$t-$rep.txt | awk '{printf "%s ", $(NF-3)}')| 4 slots $(grep -E '^43-layer round +4 slots, as drawn' $R/layers-$t-$rep.txt | awk '{print $(NF-3)}')"
  done; echo "t=$SECONDS"; cp $R/rounds.txt $OUT/ 2>/dev/null; [[ $SECONDS -gt 540 ]] && break
done | tee $R/rounds.txt
python3 - $R/rounds.txt <<'PY' | tee $R/medians.txt
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
for k in d:
    if k == "plumb": continue
    w, n = wins(d[k], d["plumb"]); print(f"{k:40s} won against main: {w} of {n}")
for k, off in (("plumb-next-normq", "plumb-next-normq@PLUMB_FUSED_NORM_QUANT=0"), ("plumb-next-mix-pre2", "plumb-next-mix-pre2@PLUMB_FUSED_HC_MIX=0")):
    if k in d and off in d:
        w, n = wins(d[k], d[off]); print(f"{k:40s} won against its switch off: {w} of {n}")
PY
tar -czf $OUT/call2-extra.tgz -C $R .; cp $R/rounds.txt $R/medians.txt $OUT/
echo "t=$SECONDS"
