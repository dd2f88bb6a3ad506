#!/usr/bin/env bash
# Session 18 call 4 (carry [".device"], timeout_s 540). Call 3's ncu showed the fused hc_pre_norm kernel at 12.4 us
# for hc_pre's 6.1 and rms_norm's 4.6: its sixteen weight loads went out one after another (weight_at's format
# switch puts each value's conversion right after its load). Two builds against main (80e654f's kernels):
#  - next-norm-weights: rms_norm's weights through load_weight_row (plain loads, all out at once).
#  - next-hc-norm: that, and hc_pre_norm (the norm in hc_pre's block, its weights so loaded;
#    PLUMB_FUSED_HC_NORM=0: the two launches).
# Built with: scripts/device-bundle-ab next-norm-weights next-hc-norm -- test_dsv4_forward (main's test binary
# removed). Answers: bits, both contracts, both branches' CUDA tests, ncu of hc_pre and rms_norm at one row (fused on
# and off), and the round at 1, 4 and 16 rows and 4 slots alternating eight times.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
X=plumb-next-norm-weights; L=plumb-next-hc-norm
VARIANTS="plumb $X $L $L@PLUMB_FUSED_HC_NORM=0"
CONTRACTS="$X $L" LIGHT=1 KERNELS=0 AB="$VARIANTS" bash tools/device/ab-builds.sh
echo "t=$SECONDS"
R=$(mktemp -d)
NCU="/usr/local/cuda/bin/ncu --clock-control none --metrics gpu__time_duration.sum --kernel-name regex:hc_pre|rms_norm|hc_mix --launch-count 240"
for run in "$L 1" "$L 0" "plumb 1"; do
  set -- $run; b=$1 sw=$2
  PLUMB_FUSED_HC_NORM=$sw PLUMB_CUDA_GRAPHS=0 timeout -k 5 150 $NCU $B/$b synth --only layers --rows 1 --repeats 1 --config .device/csa-config.json > $R/ncu-$b-$sw.txt 2>&1
  echo "-- ncu $b PLUMB_FUSED_HC_NORM=$sw (us)"
  grep -E "^  [^ ]|gpu__time_duration" $R/ncu-$b-$sw.txt | sed -E 's/\(anonymous namespace\):://g; s/plumb::cuda::(ops::)?//g; s/\(.*\) \(/ (/; s/, Context.*//; s/ +/ /g' | paste - - | awk '{k=$1" "$2" "$3; t=$NF; n[k]++; s[k]+=t; if(!(k in mn)||t<mn[k])mn[k]=t; if(t>mx[k])mx[k]=t} END{for(k in n) printf "%-50s n=%d mean=%.2f min=%.2f max=%.2f\n",k,n[k],s[k]/n[k],mn[k],mx[k]}' | sort
done | tee $R/ncu-summary.txt
echo "t=$SECONDS"
{ for b in next-norm-weights next-hc-norm; do
    echo "$b CUDA tests: $(timeout -k 5 150 $B/test_dsv4_forward-$b --gtest_filter='*cuda*:Cuda*' 2>&1 | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')"
  done; } | tee $R/tests.txt
echo "t=$SECONDS"
cmd() { local e=""; [[ $1 == *@* ]] && e=${1#*@}; echo "env ${e//,/ } $B/${1%%@*}"; }
for rep in 1 2 3 4 5 6 7 8; do for v in $VARIANTS; do t=${v//[@=,]/_}
  timeout -k 5 60 $(cmd $v) synth --only layers --rows 1 4 16 --repeats 10 > $R/layers-$t-$rep.txt 2>&1
  echo "$v rep $rep: $(grep -E '^43-layer round +1 slot, as drawn' $R/layers-$t-$rep.txt | awk '{printf "%s ", $(NF-3)}')| 4 slots $(grep -E '^43-layer round +4 slots, as drawn' $R/layers-$t-$rep.txt | awk '{print $(NF-3)}')"
done; echo "t=$SECONDS"; done | tee $R/rounds.txt
python3 - $R/rounds.txt <<'PY'
import re, statistics as st, sys
d = {}
for line in open(sys.argv[1]):
    m = re.match(r'(\S+) rep \d+: ([\d.]+) ([\d.]+) ([\d.]+) \| 4 slots ([\d.]+)', line)
    if m: d.setdefault(m.group(1), []).append([float(m.group(i)) for i in range(2, 6)])
for k, v in d.items():
    print(f"{k:40s} medians: " + "  ".join(f"{st.median(c):9.1f}" for c in zip(*v)) + "   (1 / 4 / 16 rows | 4 slots)")
base = d.get("plumb")
for k, v in d.items():
    if k == "plumb" or not base: continue
    off = d.get(k + "@PLUMB_FUSED_HC_NORM=0")
    wins = lambda other: [sum(a[c] < b[c] for a, b in zip(v, other)) for c in range(4)]
    print(f"{k:40s} pairs won against main: {wins(base)}" + (f", against its switch off: {wins(off)}" if off else ""))
PY
tar -czf $OUT/call4-extra.tgz -C $R .; cp $R/tests.txt $R/rounds.txt $R/ncu-summary.txt $OUT/
echo "t=$SECONDS"
