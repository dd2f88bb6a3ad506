#!/usr/bin/env bash
# Session 14 call 4, short (about 200 s of device time were left; carry [".device"]). Built here:
#   scripts/device-bundle-ab next-experts-deep; gzip .device/bin/plumb-*
# A = main 3985914. next-experts-deep (see its commit): 8-row expert passes whose grid fits one wave at three
# blocks a multiprocessor (one row) load two super-blocks ahead; PLUMB_EXPERTS_DEEP=0 turns it off.
# Writes each result to $OUT as it goes, in case the call is cut short.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
D=plumb-next-experts-deep; I=$(cat .device/ids.txt)
for v in plumb $D; do for c in 1 16; do
  timeout -k 5 40 $B/$v logits --backend cuda --ids "$I" --chunk $c --out /tmp/$v-$c.bin --mtp-out /tmp/$v-$c.mtp >/dev/null 2>&1 || echo "$v chunk $c failed"
done; done
{ for c in 1 16; do cmp -s /tmp/plumb-$c.bin /tmp/$D-$c.bin && cmp -s /tmp/plumb-$c.mtp /tmp/$D-$c.mtp && echo "$D chunk $c: bit-identical to A" || echo "$D chunk $c: DIFFERS from A"; done
  echo "A chunk 1 sha256: $(cat /tmp/plumb-1.bin /tmp/plumb-1.mtp | sha256sum | cut -c1-16)"
  echo "$D contract fp4_experts_cuda: $(timeout -k 5 60 $B/$D contract --backend cuda --only fp4_experts_cuda 2>&1 | tail -1)"
} | tee $OUT/checks.txt
echo "t=$SECONDS"
for rep in 1 2; do for v in plumb $D "$D@PLUMB_EXPERTS_DEEP=0"; do
  e=""; [[ $v == *@* ]] && e=${v#*@}
  env $e timeout -k 5 40 $B/${v%%@*} synth --only kernels --rows 1 --repeats 20 > /tmp/k.txt 2>&1
  echo "$v rep $rep: $(grep -E '^experts' /tmp/k.txt | awk '{printf "%s ", $(NF-3)}')"
done; done | tee $OUT/experts.txt
echo "t=$SECONDS"
for rep in 1 2; do for v in plumb $D; do
  timeout -k 5 40 $B/$v synth --only layers --rows 1 --repeats 10 > /tmp/l.txt 2>&1
  echo "$v rep $rep: $(grep -E '^43-layer round +1 slot, (as drawn|same 6) +1 ' /tmp/l.txt | awk '{printf "%s ", $(NF-3)}')"
done; done | tee $OUT/rounds.txt
echo "t=$SECONDS"
