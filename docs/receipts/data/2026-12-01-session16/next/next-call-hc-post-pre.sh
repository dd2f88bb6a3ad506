#!/usr/bin/env bash
# Prepared at the end of session 16 for a later call (carry [".device"], timeout_s 300; about 3.5 minutes). NOT RUN.
# hc_post_pre with the fused kernel's loads first: session 16's three runs kept the bits (contract 28/28, CUDA tests
# 17/17) but the fused hc_post + hc_mix kernel took 14 us at one row where the two took 9.3 (call 8), because ptxas
# kept about one column's loads in flight; this version loads a thread's 80 old and f values before making any new
# one (PTX: 120 global loads before the first fma; 124-127 registers, no spills). Build it here first, on main with a
# clean tree:
#   git checkout -b next-hc-post-pre main
#   git am docs/receipts/data/2026-12-01-session16/lost/hc-post-pre.patch \
#          docs/receipts/data/2026-12-01-session16/next/hc-post-pre-loads-first.patch
#   git checkout main && scripts/device-bundle-ab next-hc-post-pre -- test_dsv4_forward
#   rm -f .device/bin/test_dsv4_forward.gz   # main's own test binary is not needed here
# (device-bundle-ab zips every binary since 83d505e: the tree is 20 MB and the tool carries 64 MiB in all.) Then:
#   bash docs/receipts/data/2026-12-01-session16/next/next-call-hc-post-pre.sh
# What it answers: bits at chunk 1 and 16 (expect cf824e82009a0f99) and three more runs, the branch's contract (28
# kernels) and CUDA tests (CudaFusedHc among them), the round at 1, 2, 4 and 16 rows and 4 slots against main and the
# switch off (PLUMB_FUSED_HC=0) alternating twice, and ncu of the mHC kernels at 1 and 16 rows. Merge only if
# hc_post_mix is no slower than hc_post + hc_mix (3.2 + 6.1 us at one row) and the round gains.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
S=plumb-next-hc-post-pre
VARIANTS="plumb $S $S@PLUMB_FUSED_HC=0"
CONTRACTS="$S" LIGHT=1 AB="$VARIANTS" bash tools/device/ab-builds.sh
R=$(mktemp -d); I=$(cat .device/ids.txt)
{ for c in 1 16; do for k in 1 2 3; do
    timeout -k 5 60 $B/$S logits --backend cuda --ids "$I" --chunk $c --out $R/l.bin --mtp-out $R/l.mtp >/dev/null 2>&1
    echo "$S chunk $c repeat $k: $(cat $R/l.bin $R/l.mtp | sha256sum | cut -c1-16)"
  done; done
  echo "next-hc-post-pre CUDA tests: $(timeout -k 5 150 $B/test_dsv4_forward-next-hc-post-pre --gtest_filter='*cuda*:Cuda*' 2>&1 | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')"
} | tee $R/tests.txt
echo "t=$SECONDS"
cmd() { local e=""; [[ $1 == *@* ]] && e=${1#*@}; echo "env ${e//,/ } $B/${1%%@*}"; }
for rep in 1 2; do for v in $VARIANTS; do t=${v//[@=,]/_}
  timeout -k 5 60 $(cmd $v) synth --only layers --rows 1 2 4 16 --repeats 10 > $R/layers-$t-$rep.txt 2>&1
  echo "$v rep $rep: $(grep -E '^43-layer round +1 slot, as drawn' $R/layers-$t-$rep.txt | awk '{printf "%s ", $(NF-3)}')| 4 slots $(grep -E '^43-layer round +4 slots, as drawn' $R/layers-$t-$rep.txt | awk '{print $(NF-3)}')"
done; done | tee $R/rounds.txt
echo "t=$SECONDS"
NCU="/usr/local/cuda/bin/ncu --clock-control none --metrics gpu__time_duration.sum"
for run in "$S 1" "$S@PLUMB_FUSED_HC=0 1" "$S 16" "$S@PLUMB_FUSED_HC=0 16"; do
  v=${run% *}; rows=${run#* }; t=${v//[@=,]/_}; e=""; [[ $v == *@* ]] && e=${v#*@}
  env $e PLUMB_CUDA_GRAPHS=0 timeout -k 5 90 $NCU --kernel-name regex:'hc_post|hc_mix|hc_pre' --launch-count 8 \
    $B/${v%%@*} synth --only layers --rows $rows --repeats 1 --config .device/csa-config.json > $R/ncu-$t-$rows.txt 2>&1
  echo "-- $v, $rows rows"; grep -E "^  [^ ]|gpu__time_duration" $R/ncu-$t-$rows.txt | sed -E 's/\(anonymous namespace\):://g; s/plumb::cuda::(ops::)?//g; s/\(.*\) \(/ (/; s/, Context.*//; s/ +/ /g' | paste - - | cut -c1-140
done | tee $R/ncu-summary.txt
tar -czf $OUT/next-call-extra.tgz -C $R .; cp $R/tests.txt $R/rounds.txt $R/ncu-summary.txt $OUT/
echo "t=$SECONDS"
