#!/usr/bin/env bash
# Session 17 call 8 (carry [".device"], timeout_s 240; the session's last device time): the one-wave P.V with the
# lean logits and exps (next-pv-lean6 at 958ecc9; call 5: 24.4-25.3 us against 26.4-27.8 under ncu, but its two
# rounds 3-6% slower, also where that kernel does not run) against the same binary with PLUMB_PV_LEAN_ONE_WAVE=0,
# alternating eight times, and the bits of both against main (e5edf6d).
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
L=plumb-next-pv-lean6
VARIANTS="$L $L@PLUMB_PV_LEAN_ONE_WAVE=0"
R=$(mktemp -d); I=$(cat .device/ids.txt)
cmd() { local e=""; [[ $1 == *@* ]] && e=${1#*@}; echo "env ${e//,/ } $B/${1%%@*}"; }
{ for c in 1 16; do
    $B/plumb logits --backend cuda --ids "$I" --chunk $c --out $R/a.bin --mtp-out $R/a.mtp >/dev/null 2>&1
    for v in $VARIANTS; do
      $(cmd $v) logits --backend cuda --ids "$I" --chunk $c --out $R/l.bin --mtp-out $R/l.mtp >/dev/null 2>&1
      echo "$v chunk $c: $(cat $R/l.bin $R/l.mtp | sha256sum | cut -c1-16) (main $(cat $R/a.bin $R/a.mtp | sha256sum | cut -c1-16))"
    done
  done; } | tee $R/checks.txt
echo "t=$SECONDS"
for rep in 1 2 3 4 5 6 7 8; do for v in $VARIANTS; do t=${v//[@=,]/_}
  timeout -k 5 60 $(cmd $v) synth --only layers --rows 1 4 --repeats 10 > $R/layers-$t-$rep.txt 2>&1
  echo "$v rep $rep: $(grep -E '^43-layer round +1 slot, as drawn' $R/layers-$t-$rep.txt | awk '{printf "%s ", $(NF-3)}')| 4 slots $(grep -E '^43-layer round +4 slots, as drawn' $R/layers-$t-$rep.txt | awk '{print $(NF-3)}')"
done; done | tee $R/rounds.txt
rm -f $R/*.bin $R/*.mtp; tar -czf $OUT/call8-extra.tgz -C $R .; cp $R/checks.txt $R/rounds.txt $OUT/
echo "t=$SECONDS"
