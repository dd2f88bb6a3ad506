#!/usr/bin/env bash
# Prepared at the end of session 10 for the next session's first device call: carry [".device"], timeout_s 600
# (about 7-8 minutes). Outputs land in $OUT/next-call1.tgz (the device tool returns at most 8 files) and on stdout.
# main (5afb34e: the kernels that ran in session 10 call 5 at c3a8532, PTX unchanged since: the router by counting,
# the experts at 2048 K a split; the host side since opts the indexer's sort in to its shared memory once)
# against four builds NOT yet run on a GPU:
#   next-experts-cp-async (122cd40): the experts passes stream their weights through a cp.async ring of 4
#     super-blocks in shared memory a warp (three ahead of the one computed), where they loaded one ahead into
#     registers; the bits cannot change (same data, same arithmetic);
#   next-experts-cp-async6 (c7474d6): the same with 6 super-blocks (48 KB a gate/up block);
#   next-shared-pair (817964c): the shared expert's w1 and w3 in one launch (fp8_linear_fused_pair_kernel), each
#     linear with its own grid, splits and counters; PLUMB_FP8_PAIR=0 turns it off (same bits either way);
#   next-hc-one-launch (9b09c36): hc_mix and hc_pre in one launch (the last of a row's mix blocks does the pre work);
#     PLUMB_HC_ONE_LAUNCH=0 turns it off (same bits either way).
# Expect the fingerprint cf824e82009a0f99 from every build, and the contract and CUDA tests to pass.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin; R=$(mktemp -d)
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
I=$(cat .device/ids.txt); V="plumb plumb-next-experts-cp-async plumb-next-experts-cp-async6 plumb-next-shared-pair plumb-next-hc-one-launch"
for v in $V; do for c in 1 16; do
  timeout -k 5 60 $B/$v logits --backend cuda --ids "$I" --chunk $c --out /tmp/$v-$c.bin --mtp-out /tmp/$v-$c.mtp >/dev/null 2>&1 || echo "$v chunk $c failed"
done; done
{ for v in $V; do for c in 1 16; do
    cmp -s /tmp/plumb-$c.bin /tmp/$v-$c.bin && cmp -s /tmp/plumb-$c.mtp /tmp/$v-$c.mtp && echo "$v chunk $c: bit-identical to main" || echo "$v chunk $c: DIFFERS from main"
  done; done
  for c in 1 16; do echo "main chunk $c sha256: $(cat /tmp/plumb-$c.bin /tmp/plumb-$c.mtp | sha256sum | cut -c1-16)"; done
  for v in plumb-next-experts-cp-async plumb-next-shared-pair plumb-next-hc-one-launch; do  # cp-async6: one constant apart
    echo "$v contract: $(timeout -k 5 150 $B/$v contract --backend cuda 2>&1 | tail -1)"
    echo "$v CUDA tests: $(timeout -k 5 120 $B/test_dsv4_forward-${v#plumb-} --gtest_filter='*cuda*:Cuda*' 2>&1 | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')"
  done
  echo "shared-pair, PLUMB_FP8_PAIR=0 chunk 1: $(PLUMB_FP8_PAIR=0 timeout -k 5 60 $B/plumb-next-shared-pair logits --backend cuda --ids "$I" --chunk 1 --out /tmp/p0.bin --mtp-out /tmp/p0.mtp >/dev/null 2>&1; cmp -s /tmp/p0.bin /tmp/plumb-1.bin && cmp -s /tmp/p0.mtp /tmp/plumb-1.mtp && echo bit-identical || echo DIFFERS)"
  echo "hc-one-launch, PLUMB_HC_ONE_LAUNCH=0 chunk 1: $(PLUMB_HC_ONE_LAUNCH=0 timeout -k 5 60 $B/plumb-next-hc-one-launch logits --backend cuda --ids "$I" --chunk 1 --out /tmp/h0.bin --mtp-out /tmp/h0.mtp >/dev/null 2>&1; cmp -s /tmp/h0.bin /tmp/plumb-1.bin && cmp -s /tmp/h0.mtp /tmp/plumb-1.mtp && echo bit-identical || echo DIFFERS)"
} | tee $R/checks.txt
echo "t=$SECONDS"
STALLS=$(for r in long_scoreboard wait not_selected math_pipe_throttle short_scoreboard mio_throttle lg_throttle; do printf "smsp__average_warps_issue_stalled_%s_per_issue_active.ratio," $r; done)
for v in plumb plumb-next-shared-pair plumb-next-hc-one-launch; do  # the shared expert's linears and the mHC launches alone
  PLUMB_CUDA_GRAPHS=0 timeout -k 5 60 /usr/local/cuda/bin/ncu --clock-control none --kernel-name regex:'fp8_linear_fused|hc_mix|hc_pre' --launch-count 12 \
    --metrics gpu__time_duration.sum $B/$v synth --only layers --rows 1 --repeats 1 --config .device/window-config.json > $R/ncu-fused-$v.txt 2>&1
  echo "-- $v"; grep -E "fp8_linear_fused|hc_mix|hc_pre|duration" $R/ncu-fused-$v.txt | sed -E 's/\(unnamed[^)]*\)//g; s/ +/ /g' | paste - - | cut -c1-50,120- | head -12
done
for v in plumb plumb-next-experts-cp-async plumb-next-experts-cp-async6; do  # the experts passes alone at one row (main: gate/up + down 44.0 us in session 10 call 5)
  PLUMB_CUDA_GRAPHS=0 timeout -k 5 60 /usr/local/cuda/bin/ncu --clock-control none --kernel-name regex:'experts_pass' --launch-count 2 \
    --metrics ${STALLS}gpu__time_duration.sum,smsp__warps_active.avg.per_cycle_active,smsp__issue_active.avg.per_cycle_active,dram__bytes_read.sum \
    $B/$v synth --only layers --rows 1 --repeats 1 --config .device/window-config.json > $R/ncu-experts-$v.txt 2>&1
  echo "-- $v"; grep -E "experts_pass|duration|warps_active|issue_active|long_scoreboard|wait_per" $R/ncu-experts-$v.txt | sed -E 's/\(unnamed[^)]*\)//g; s/smsp__average_warps_issue_stalled_//; s/ +/ /g' | cut -c1-100
done
# Where main's one-launch FP8 linear (wq_a, 8.9 us alone) and hc_pre (8.3 us) wait: ncu's per-SASS-line stall
# samples (lead 3 and 4 of session 10's note). tools/device/ncu_layer_table.py does not read these; see session 9's
# receipt for how the source page was read.
PLUMB_CUDA_GRAPHS=0 timeout -k 5 90 /usr/local/cuda/bin/ncu --clock-control none --set full --kernel-name regex:'fp8_linear_fused_kernel|hc_pre_kernel' \
  --launch-count 2 -o /tmp/small $B/plumb synth --only layers --rows 1 --repeats 1 --config .device/window-config.json > /dev/null 2>&1
/usr/local/cuda/bin/ncu -i /tmp/small.ncu-rep --page source --print-source sass --csv 2>/dev/null | gzip > $R/small-kernels-sass.csv.gz
/usr/local/cuda/bin/ncu -i /tmp/small.ncu-rep --page details 2>/dev/null | gzip > $R/small-kernels-details.txt.gz
echo "t=$SECONDS"
for v in plumb plumb-next-experts-cp-async; do  # no kernel class runs the pair or the mHC launch
  timeout -k 5 90 $B/$v synth --only kernels --rows 1 2 4 8 16 --repeats 20 --json $R/kernels-$v.json > $R/kernels-$v.txt 2>&1
  echo "== $v"; grep -E "^experts" $R/kernels-$v.txt | grep -E " (1|8|16) "
done
echo "t=$SECONDS"
for rep in 1 2; do for v in $V; do
  [[ $rep == 2 && $v == plumb-next-experts-cp-async6 ]] && continue
  timeout -k 5 60 $B/$v synth --only layers --rows 1 16 --repeats 10 > $R/layers-$v-$rep.txt 2>&1
  echo "$v rep $rep:"; grep -E "^43" $R/layers-$v-$rep.txt
done; done
tar -czf $OUT/next-call1.tgz -C $R .; cp $R/checks.txt $OUT/
echo "t=$SECONDS"
