#!/usr/bin/env bash
# Session 15 call 3 (carry [".device"], timeout_s 400): call 2's ncu runs, whose command line was wrong (the env
# settings went after ncu's own options). The attention kernels of one CSA/4 layer at 1 and 16 rows for main
# (51188c1) and next-attn-heads8 (2b024a1; its default and the narrow P.V at one row), then every kernel of that
# layer at 16 rows and at 1 row for main (csv), for the next session's leads.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
S=plumb-next-attn-heads8; R=$(mktemp -d)
NCU="/usr/local/cuda/bin/ncu --clock-control none --metrics gpu__time_duration.sum"
for run in "plumb 1" "plumb 16" "$S 1" "$S 16" "$S@PLUMB_ATTENTION_PV_NARROW_ROWS=1 1" "$S@PLUMB_ATTENTION_LOGITS_WIDE_ROWS=0 16" "$S@PLUMB_ATTENTION_PV_WIDE_ROWS=0 16"; do
  v=${run% *}; rows=${run#* }; t=${v//[@=,]/_}; e=""; [[ $v == *@* ]] && e=${v#*@}
  env $e PLUMB_CUDA_GRAPHS=0 timeout -k 5 90 $NCU --kernel-name regex:'attention_pv|attention_logits' --launch-count 4 \
    $B/${v%%@*} synth --only layers --rows $rows --repeats 1 --config .device/csa-config.json > $R/ncu-$t-$rows.txt 2>&1
  echo "-- $v, $rows rows"; grep -E "^  [^ ]|gpu__time_duration" $R/ncu-$t-$rows.txt | sed -E 's/\(anonymous namespace\):://g; s/plumb::cuda::(ops::)?//g; s/\(.*\) \(/ (/; s/, Context.*//; s/ +/ /g' | paste - - | cut -c1-140
done | tee $R/ncu-summary.txt
echo "t=$SECONDS"
for rows in 16 1; do
  PLUMB_CUDA_GRAPHS=0 timeout -k 5 150 $NCU --launch-skip 30 --launch-count 120 --csv \
    $B/plumb synth --only layers --rows $rows --repeats 1 --config .device/csa-config.json > $R/ncu-all-main-$rows.csv 2>&1
  echo "all kernels, $rows rows: $(grep -c gpu__time_duration $R/ncu-all-main-$rows.csv) launches, t=$SECONDS"
done
tar -czf $OUT/call3-extra.tgz -C $R .; cp $R/ncu-summary.txt $OUT/
echo "t=$SECONDS"
