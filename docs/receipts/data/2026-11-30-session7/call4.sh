#!/usr/bin/env bash
# session 7, call 4 (the last ~400 s of device time): main 9b5b7df (lean experts) - bits, contract, CUDA tests; SASS
# of the hot kernels and ncu stall reasons of the experts passes for the next session; two occupancy variants
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin; W=$(mktemp -d)
I=$(cat .device/ids.txt)
for v in plumb plumb-next-experts-down-occ5 plumb-next-occ5; do for c in 1 16; do
  timeout -k 5 60 $B/$v logits --backend cuda --ids "$I" --chunk $c --out /tmp/$v-$c.bin --mtp-out /tmp/$v-$c.mtp --json /tmp/$v-$c.json >/dev/null 2>&1 || echo "$v chunk $c failed"
done; done
{ for c in 1 16; do echo "main chunk $c sha256: $(cat /tmp/plumb-$c.bin /tmp/plumb-$c.mtp | sha256sum | cut -c1-16) (cb17387 and de57024: cf824e82009a0f99)"; done
  for v in plumb-next-experts-down-occ5 plumb-next-occ5; do for c in 1 16; do
    cmp -s /tmp/plumb-$c.bin /tmp/$v-$c.bin && cmp -s /tmp/plumb-$c.mtp /tmp/$v-$c.mtp && echo "$v chunk $c: bit-identical to main" || echo "$v chunk $c: DIFFERS from main"
  done; done
  echo "main contract: $(timeout -k 5 90 $B/plumb contract --backend cuda 2>&1 | tail -1)"
} | tee $W/checks.txt
timeout -k 5 100 $B/test_dsv4_forward --gtest_filter='*cuda*:Cuda*' > $W/tests-main.txt 2>&1; tail -1 $W/tests-main.txt | tee -a $W/checks.txt
echo "t=$SECONDS"
CUOBJ=/usr/local/cuda/bin/cuobjdump; [[ -x $CUOBJ ]] || CUOBJ=$(command -v cuobjdump)
$CUOBJ -sass $B/plumb > $W/all.sass 2>&1
python3 - $W <<'PY'
import re, sys
w = sys.argv[1]; s = open(w + "/all.sass").read()
for want, out in [("experts_pass_kernelILi1ELb1", "sass-experts-gate-up-8row.txt"), ("experts_pass_kernelILi1ELb0", "sass-experts-down-8row.txt"), ("fp8_linear_kernelILi1E", "sass-fp8-8row.txt")]:
    parts = re.split(r"\n(?=\s+Function : )", s)
    hit = [p for p in parts if want in p.split("\n", 1)[0]]
    open(w + "/" + out, "w").write(hit[0] if hit else "not found\n")
    print(out, len(hit[0].splitlines()) if hit else 0, "lines")
PY
rm -f $W/all.sass
STALLS=$(for r in long_scoreboard short_scoreboard wait math_pipe_throttle mio_throttle lg_throttle not_selected selected barrier dispatch_stall no_instruction branch_resolving membar drain sleeping imc_miss tex_throttle; do printf "smsp__average_warps_issue_stalled_%s_per_issue_active.ratio," $r; done)
PLUMB_CUDA_GRAPHS=0 timeout -k 5 60 /usr/local/cuda/bin/ncu --clock-control none --kernel-name-base function \
  --kernel-name regex:experts_pass --launch-count 2 --metrics ${STALLS}smsp__inst_executed.sum,gpu__time_duration.sum,smsp__issue_active.avg.per_cycle_active \
  $B/plumb synth --only layers --rows 1 --repeats 1 > $W/ncu-experts-stalls-main.txt 2>&1
grep -E "experts_pass_kernel|stalled|inst_executed|duration|issue_active" $W/ncu-experts-stalls-main.txt | sed 's/smsp__average_warps_issue_stalled_//' | head -44
echo "t=$SECONDS"
for v in plumb plumb-next-experts-down-occ5 plumb-next-occ5; do
  timeout -k 5 90 $B/$v synth --only kernels > $W/kernels-$v.txt 2>&1
  timeout -k 5 40 $B/$v synth --only layers --rows 1 16 --repeats 10 > $W/layers-$v.txt 2>&1
  echo "== $v"; grep -E "^fp8 rows +wq_b|^experts .* (1|16) " $W/kernels-$v.txt; grep -E "^43" $W/layers-$v.txt
  echo "t=$SECONDS"
done | tee $W/summary.txt
cp $W/checks.txt $W/summary.txt $OUT/ && tar -czf $OUT/call4.tgz -C $W .
echo "t=$SECONDS"
