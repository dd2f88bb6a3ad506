#!/usr/bin/env bash
# Session 13 call 2: main (the FP8 block sum merged) against next-s13b (built, NOT yet run on a GPU):
#   experts from 9 rows on split by pair count: more than 8 pairs in 16-row passes (PLUMB_EXPERTS_BY_SIZE=0: off)
#   the gate/up pass's MMAs without the emulation's add of a zero C (PLUMB_EXPERTS_NO_C=0: off)
# Bits at chunk 1 and 16 against main, the contract and CUDA tests of next-s13b, kernel classes; then the round
# alternating twice, ncu of the experts kernels and SASS opcode counts of the 8-row gate/up kernels.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
S=plumb-next-s13b
CONTRACTS="$S" SETTINGS_KERNELS=1 LIGHT=1 AB="plumb $S $S@PLUMB_EXPERTS_BY_SIZE=0 $S@PLUMB_EXPERTS_NO_C=0" \
  bash tools/device/ab-builds.sh
R=$(mktemp -d)
echo "next-s13b CUDA tests: $(timeout -k 5 120 $B/test_dsv4_forward-next-s13b --gtest_filter='*cuda*:Cuda*' 2>&1 | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')" | tee $R/tests.txt
echo "t=$SECONDS"
for rep in 1 2; do for v in plumb "$S" "$S@PLUMB_EXPERTS_NO_C=0"; do t=${v//[@=]/_}; e=""; [[ $v == *@* ]] && e=${v#*@}
  env $e timeout -k 5 60 $B/${v%%@*} synth --only layers --rows 1 16 --repeats 10 > $R/layers-$t-$rep.txt 2>&1
  echo "$v rep $rep: $(grep -E '^43' $R/layers-$t-$rep.txt | awk '{printf "%s ", $(NF-3)}')"
done; done | tee $R/rounds.txt
echo "t=$SECONDS"
for v in "$S" "$S@PLUMB_EXPERTS_NO_C=0"; do t=${v//[@=]/_}; e=""; [[ $v == *@* ]] && e=${v#*@}
  env $e PLUMB_CUDA_GRAPHS=0 timeout -k 5 90 /usr/local/cuda/bin/ncu --clock-control none --kernel-name regex:'experts_pass' \
    --launch-count 6 --metrics gpu__time_duration.sum,launch__registers_per_thread,smsp__inst_executed.sum \
    $B/${v%%@*} synth --only layers --rows 1 --repeats 1 > $R/ncu-$t.txt 2>&1
  echo "-- $v"; grep -E "^  [^ ]|gpu__time_duration|inst_executed" $R/ncu-$t.txt | sed -E 's/\(anonymous namespace\):://g; s/plumb::cuda::(ops::)?//g; s/\(.*\) \(/ (/; s/, Context.*//; s/ +/ /g' | paste - - - | cut -c1-160
done | tee $R/ncu-summary.txt
/usr/local/cuda/bin/cuobjdump -sass $B/$S > $R/sass.txt 2>&1
awk '/Function : .*experts_pass_kernelILi1ELb1E/ { f = $3; next } /Function :/ { f = "" }
     f != "" && /^ +\/\*[0-9a-f]+\*\/ / { op = $2; if (op ~ /^@/) op = $3; sub(/\..*/, "", op); n[f" "op]++; tot[f]++ }
     END { for (k in n) if (n[k] >= 20) print k, n[k]; for (f in tot) print f, "TOTAL", tot[f] }' $R/sass.txt | sort > $R/sass-counts.txt
sed -E 's/_ZN5plumb4cuda\S*experts_pass_kernel//' $R/sass-counts.txt | grep -E "TOTAL|HMMA|FADD|F2FP|FFMA|FMUL|LOP3|BRA" | column -t
tar -czf $OUT/call2-extra.tgz -C $R .; cp $R/tests.txt $R/rounds.txt $R/ncu-summary.txt $OUT/
echo "t=$SECONDS"
