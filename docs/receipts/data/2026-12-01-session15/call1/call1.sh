#!/usr/bin/env bash
# Prepared at the end of session 14 for the next session's first call (carry [".device"], timeout_s 580; about 8
# minutes). Build it here first (a clean tree, main checked out):
#   N=docs/receipts/data/2026-12-01-session14/next
#   git branch next-experts-deep main && git checkout next-experts-deep && git am $N/experts-deep.patch && git checkout main
#   git branch next-early main && git checkout next-early && git am $N/fp8-early.patch $N/dense-early.patch $N/four-from.patch && git checkout main
#   scripts/device-bundle-ab next-experts-deep next-early -- test_dsv4_forward
#   gzip .device/bin/plumb-* .device/bin/test_dsv4_forward*  # < 64 MiB
# Then: bash docs/receipts/data/2026-12-01-session14/next-call1.sh
# Three experiments and a threshold, each with its switch (same bits either way; none has been timed):
#   next-experts-deep (PLUMB_EXPERTS_DEEP=0 turns it off): 8-row expert passes whose grid fits one wave at three
#     blocks a multiprocessor (one row) load two super-blocks ahead. Session 14 call 4 checked its bits and its
#     contract entry (4 controls red) but ran out of device time before timing it.
#   next-early: weights before the PDL wait, as the cluster kernels already do. Only graphs with programmatic edges
#     (the layers, the round) can show it; synth's kernel classes launch plainly.
#     PLUMB_FP8_EARLY=0: the FP8 linears' 8-row passes load their first K block before the wait, or not.
#     PLUMB_DENSE_EARLY=0: the deep bf16 kernel with its activations in shared memory (router gate, compressors,
#     the indexer's head weights at decode) loads its weights before the wait, or not.
#   Also on next-early, PLUMB_DENSE_FOUR_FROM=2 (default 4): wo_a at 3-4 rows in one 8-row pass (its weights read
#     once) instead of two 2-row passes. Only the round at 4 rows and 4 slots can show it.
# Main (and so both branches) has b6abd6b: synth's kernel classes draw their random weights with splitmix64, about
# 20 s less host time a run; the values differ from session 14's, the kernels' times should not.
# Expect main's bits cf824e82009a0f99. Session 14 had the experts at 1 row at 44.3-44.6 us and the round at 1 row at
# 11.17-11.42 ms (main 3985914).
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
E=plumb-next-experts-deep; F=plumb-next-early
CONTRACTS="$E $F" LIGHT=1 SETTINGS_KERNELS=1 \
  AB="plumb $E $E@PLUMB_EXPERTS_DEEP=0 $F $F@PLUMB_FP8_EARLY=0 $F@PLUMB_DENSE_EARLY=0 $F@PLUMB_DENSE_FOUR_FROM=2" \
  bash tools/device/ab-builds.sh
R=$(mktemp -d)
{ # main's contract: its dense_linear entry gained a 4096-row grouped FP8 shape (the four-features kernels, wo_a's),
  # which no contract had run on the GPU; the four-rows8 kernel merged in session 14 is among them
  echo "main contract: $(timeout -k 5 150 $B/plumb contract --backend cuda 2>&1 | tail -1)"
  echo "main contract dense_linear: $(timeout -k 5 60 $B/plumb contract --backend cuda --only dense_linear 2>&1 | grep -E 'dense_linear +gates')"
  # the threshold variant's 3-4 rows take the 8-row kernel: gate 3 of that entry compares them with rows alone
  echo "next-early@PLUMB_DENSE_FOUR_FROM=2 contract dense_linear: $(PLUMB_DENSE_FOUR_FROM=2 timeout -k 5 60 $B/plumb-next-early contract --backend cuda --only dense_linear 2>&1 | grep -E 'dense_linear +gates')"
  for b in next-experts-deep next-early; do
    echo "$b CUDA tests: $(timeout -k 5 120 $B/test_dsv4_forward-$b --gtest_filter='*cuda*:Cuda*' 2>&1 | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')"
  done
} | tee $R/tests.txt
echo "t=$SECONDS"
cmd() { local e=""; [[ $1 == *@* ]] && e=${1#*@}; echo "env ${e//,/ } $B/${1%%@*}"; }
for rep in 1 2; do for v in plumb "$E" "$F" "$F@PLUMB_FP8_EARLY=0" "$F@PLUMB_DENSE_EARLY=0" "$F@PLUMB_DENSE_FOUR_FROM=2"; do
  t=${v//[@=,]/_}
  timeout -k 5 60 $(cmd $v) synth --only layers --rows 1 4 8 16 --repeats 10 > $R/layers-$t-$rep.txt 2>&1
  echo "$v rep $rep: $(grep -E '^43-layer round +1 slot, as drawn' $R/layers-$t-$rep.txt | awk '{printf "%s ", $(NF-3)}')| 4 slots $(grep -E '^43-layer round +4 slots, as drawn' $R/layers-$t-$rep.txt | awk '{print $(NF-3)}')"
done; done | tee $R/rounds.txt
echo "t=$SECONDS"
tar -czf $OUT/next-call1-extra.tgz -C $R .; cp $R/tests.txt $R/rounds.txt $OUT/
echo "t=$SECONDS"
