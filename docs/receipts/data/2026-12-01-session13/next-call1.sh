#!/usr/bin/env bash
# Prepared at the end of session 13 for the next session's first call (carry [".device"], timeout_s 580; about 7-8
# minutes). Build it here first (a clean tree, main checked out):
#   for p in four-rows8 deep16; do git branch next-dense-$p main && git checkout next-dense-$p &&
#     git am docs/receipts/data/2026-12-01-session13/next/dense-$p.patch && git checkout main; done
#   scripts/device-bundle-ab 43d0444 next-dense-four-rows8 next-dense-deep16 -- test_dsv4_forward
#   rm .device/bin/test_dsv4_forward-43d0444; gzip .device/bin/plumb-* .device/bin/test_dsv4_forward*  # < 64 MiB
# Then: bash docs/receipts/data/2026-12-01-session13/next-call1.sh
# 1. Main (dense_linear's batched loads above 4 rows, merged in f6c7fcd, never run as combined) against 43d0444 (the
#    last main that ran): bits at chunk 1 and 16 (expect cf824e82009a0f99), main's contract (its experts entry has a
#    new variant, the engine's own pass sizes, never run yet) and CUDA tests, and the
#    round at 1, 4, 8 and 16 rows alternating twice (expect 1 and 4 rows as 43d0444, 8 rows about -7%, 16 about -10%).
# 2. Two patches in next/, NOT run on a GPU, each with its switch (same bits either way):
#    next-dense-four-rows8: large FP8 matrices (wo_a) above 4 rows four features a warp, 8 rows a pass
#      (PLUMB_DENSE_FOUR_ROWS8=0 turns it off); wo_a took 205 us at 16 rows in session 13 call 6
#    next-dense-deep16: the small bf16 matrices above 8 rows in passes of 16 (PLUMB_DENSE_DEEP16=0 turns it off);
#      about 30 us a launch at 16 rows in call 6
#    Their bits, contracts, CUDA tests, the round, and the dense kernels at 16 rows.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
N=plumb-next-dense-four-rows8; M=plumb-next-dense-deep16; C=docs/receipts/data/2026-12-01-session13/csa-config.json
CONTRACTS="$N $M" LIGHT=1 AB="plumb plumb-43d0444 $N $M" bash tools/device/ab-builds.sh
R=$(mktemp -d)
{ echo "main contract: $(timeout -k 5 150 $B/plumb contract --backend cuda 2>&1 | tail -1)"
  echo "main CUDA tests: $(timeout -k 5 120 $B/test_dsv4_forward --gtest_filter='*cuda*:Cuda*' 2>&1 | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')"
  for b in next-dense-four-rows8 next-dense-deep16; do
    echo "$b CUDA tests: $(timeout -k 5 120 $B/test_dsv4_forward-$b --gtest_filter='*cuda*:Cuda*' 2>&1 | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')"
  done
} | tee $R/tests.txt
echo "t=$SECONDS"
for rep in 1 2; do for v in plumb plumb-43d0444 "$N" "$M"; do
  timeout -k 5 60 $B/$v synth --only layers --rows 1 4 8 16 --repeats 10 > $R/layers-$v-$rep.txt 2>&1
  echo "$v rep $rep: $(grep -E '^43-layer round +1 slot, as drawn' $R/layers-$v-$rep.txt | awk '{printf "%s ", $(NF-3)}')| 4 slots $(grep -E '^43-layer round +4 slots, as drawn' $R/layers-$v-$rep.txt | awk '{print $(NF-3)}')"
done; done | tee $R/rounds.txt
echo "t=$SECONDS"
for v in plumb plumb-43d0444 "$N" "$M"; do
  PLUMB_CUDA_GRAPHS=0 timeout -k 5 60 /usr/local/cuda/bin/ncu --clock-control none --kernel-name regex:'dense_linear' --launch-count 8 \
    --metrics gpu__time_duration.sum,launch__registers_per_thread $B/$v synth --only layers --rows 16 --repeats 1 --config $C > $R/ncu-$v.txt 2>&1
  echo "-- $v"; grep -E "^  [^ ]|gpu__time_duration" $R/ncu-$v.txt | sed -E 's/\(anonymous namespace\):://g; s/plumb::cuda::(ops::)?//g; s/\(.*\) \(/ (/; s/, Context.*//; s/ +/ /g' | paste - - | cut -c1-150
done | tee $R/ncu-summary.txt
tar -czf $OUT/next-call1-extra.tgz -C $R .; cp $R/tests.txt $R/rounds.txt $R/ncu-summary.txt $OUT/
echo "t=$SECONDS"
