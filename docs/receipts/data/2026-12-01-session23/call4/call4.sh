#!/usr/bin/env bash
# Session 23, call 4 (carry [".device"], timeout_s 240): main at 17d7959 (wo_a on the matrix unit, merged) and two
# tunings of its kernel in next-wo-a-tune (4646af0): PLUMB_WO_A_DEPTH=3 (three K blocks in flight up to 8 rows; the
# same arithmetic) and PLUMB_WO_A_SPLITS=8 (eight K shares a block: another sum order at K above 4 blocks, the tiny
# model's 2 blocks unchanged). Built from main with scripts/device-bundle-ab next-wo-a-tune; .device/openai.tgz is
# tools/node/node_modules/openai packed. Answers: bits against main; the dense entry of the contract under each
# setting; wo_a's kernel class each way; the openai client end to end against plumb serve on CUDA; then the round
# not alternated: the session had about 360 s of device time left.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
R=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt
E=plumb-next-wo-a-tune
V="$E@PLUMB_WO_A_DEPTH=2 $E@PLUMB_WO_A_DEPTH=3 $E@PLUMB_WO_A_SPLITS=8"
CONTRACTS="none" LIGHT=1 KERNELS=0 AB="plumb $V" OUT=$R bash tools/device/ab-builds.sh > /dev/null
cat $R/checks.txt; echo "t=$SECONDS"
for v in PLUMB_WO_A_DEPTH=2 PLUMB_WO_A_DEPTH=3 PLUMB_WO_A_SPLITS=8; do
  echo "dense_linear_cuda ($v): $(env $v timeout -k 5 60 $B/$E contract --backend cuda --only dense_linear_cuda 2>&1 | tail -1)"
  env $v timeout -k 5 90 $B/$E synth --only kernels > "$R/kernels-${v//=/-}.txt" 2>&1
  grep -E "^dense fp8" "$R/kernels-${v//=/-}.txt"
done | tee $R/wo_a.txt
echo "t=$SECONDS"
if command -v node >/dev/null; then
  mkdir -p /tmp/nm && tar xzf .device/openai.tgz -C /tmp/nm
  $B/plumb run --ids 1,2,3,4,5 -n 8 --temperature 0 --json 2>&1 | tail -1 | tee $R/run.txt
  PLUMB_BINARY=$PWD/$B/plumb PLUMB_CACHE_DIR=/tmp/plumb-cache NODE_PATH=/tmp/nm timeout -k 5 80 node --test tests/e2e/openai.test.js > $R/e2e.txt 2>&1
  grep -E "^(not )?ok|^# (tests|pass|fail)" $R/e2e.txt
else
  echo "no node on this machine: the openai e2e did not run" | tee $R/e2e.txt
fi
echo "t=$SECONDS"
tar -czf $OUT/call.tgz -C $R .
cp $R/checks.txt $R/wo_a.txt $R/e2e.txt $OUT/ 2>/dev/null
echo "t=$SECONDS"
