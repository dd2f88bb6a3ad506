#!/usr/bin/env bash
# Session 12 call 5: main at ce3b7ce (kernels of 07af26d: wo_a's two-code conversion, the shared pair up to 16 rows,
# the indexer's shared-memory rows) against the session's start (02b4fe4), then main alone: the contract, the CUDA
# tests, plumb synth as JSON, and per-instruction stall samples of the P.V and gate/up kernels for the next leads.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin; R=$(mktemp -d)
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; $B/plumb version; $B/plumb-session12-start version; date -u; } | tee $R/gpu.txt
I=$(cat .device/ids.txt)
for v in plumb plumb-session12-start; do for c in 1 16; do
  timeout -k 5 60 $B/$v logits --backend cuda --ids "$I" --chunk $c --out /tmp/$v-$c.bin --mtp-out /tmp/$v-$c.mtp >/dev/null 2>&1 || echo "$v chunk $c failed"
done; done
{ for c in 1 16; do
    cmp -s /tmp/plumb-$c.bin /tmp/plumb-session12-start-$c.bin && cmp -s /tmp/plumb-$c.mtp /tmp/plumb-session12-start-$c.mtp && echo "chunk $c: main bit-identical to the start" || echo "chunk $c: main DIFFERS from the start"
    echo "main chunk $c sha256: $(cat /tmp/plumb-$c.bin /tmp/plumb-$c.mtp | sha256sum | cut -c1-16)"
  done
  echo "main contract: $(timeout -k 5 200 $B/plumb contract --backend cuda --json $R/contract-cuda.json > $R/contract-cuda.txt 2>&1; tail -1 $R/contract-cuda.txt)"
  echo "main CUDA tests: $(timeout -k 5 200 $B/test_dsv4_forward --gtest_filter='*cuda*:Cuda*' > $R/cuda-tests.txt 2>&1; grep -E '^\[  (PASSED|FAILED)' $R/cuda-tests.txt | tr '\n' ' ')"
} | tee $R/checks.txt
echo "t=$SECONDS"; cp $R/checks.txt $OUT/
for rep in 1 2 3; do for v in plumb-session12-start plumb; do
  timeout -k 5 60 $B/$v synth --only layers --rows 1 8 16 --repeats 10 > $R/layers-$v-$rep.txt 2>&1
  echo "$v rep $rep: $(grep -E '^43' $R/layers-$v-$rep.txt | awk '{printf "%s ", $(NF-3)}') | CSA/4 top-k 1 row: $(grep -E '^layer CSA/4 top-k +1 slot, as drawn +1 ' $R/layers-$v-$rep.txt | awk '{print $(NF-3)}')"
done; done | tee -a $R/checks.txt
echo "t=$SECONDS"; cp $R/checks.txt $OUT/
timeout -k 5 240 $B/plumb synth --json $R/synth.json > $R/synth.txt 2>&1; grep -vE "^(layers|kernels):" $R/synth.txt | tail -80
echo "t=$SECONDS"; tar -czf $OUT/call5.tgz -C $R .
if [ $SECONDS -lt 400 ]; then
  PLUMB_CUDA_GRAPHS=0 timeout -k 5 90 /usr/local/cuda/bin/ncu --clock-control none --kernel-name regex:'attention_pv|experts_pass' --launch-count 2 \
    --section SourceCounters --section WarpStateStats --page source --csv --print-source sass \
    $B/plumb synth --only layers --rows 1 --repeats 1 --config .device/csa-config.json > $R/ncu-source.csv 2> $R/ncu-source.err
  ls -la $R/ncu-source.csv; head -c 600 $R/ncu-source.csv; tail -3 $R/ncu-source.err; gzip -f $R/ncu-source.csv
  tar -czf $OUT/call5.tgz -C $R .
fi
echo "t=$SECONDS"
