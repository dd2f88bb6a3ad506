#!/usr/bin/env bash
# On the GPU machine, from the repo root with .device/ carried: two builds side by side in one call, for a kernel
# experiment against main. .device/bin/plumb is A (main), .device/bin/plumb-b is B (the experiment; build it here
# with scripts/device-bundle on the experiment's commit and copy its plumb in as plumb-b). .device/ids.txt: comma-
# separated token ids < 1024. Checks B's tiny-model logits and MTP logits against A's at chunk 1 and 16, B's
# contract, then times both: synth kernel classes, per-kernel device times at 1 row, and the layers at 1 and 16
# rows. A and B run alternately, so a difference under ~5% between them is noise. Outputs under $OUT.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; B=.device/bin; OUT=${OUT:-/tmp/out}; SECONDS=0
mkdir -p "$OUT"
for b in plumb plumb-b; do echo "$b: $($B/$b version)"; done | tee $OUT/versions.txt
I=$(cat .device/ids.txt)
for b in plumb plumb-b; do for c in 1 16; do $B/$b logits --backend cuda --ids "$I" --chunk $c --out /tmp/$b-$c.bin --mtp-out /tmp/$b-$c.mtp --json /tmp/$b-$c.json >/dev/null 2>&1 || echo "$b $c failed"; done; done
{ for c in 1 16; do cmp -s /tmp/plumb-$c.bin /tmp/plumb-b-$c.bin && cmp -s /tmp/plumb-$c.mtp /tmp/plumb-b-$c.mtp && echo "chunk $c: B bit-identical to A" || echo "chunk $c: B DIFFERS from A"; done
  timeout -k 5 150 $B/plumb-b contract --backend cuda 2>&1 | tail -1; } | tee $OUT/checks.txt
echo "t=$SECONDS"
for b in plumb plumb-b; do
  timeout -k 5 150 $B/$b synth --only kernels > $OUT/kernels-$b.txt 2>&1
  PLUMB_CUDA_KERNEL_TIMES=1 timeout -k 5 60 $B/$b synth --only layers --rows 1 --repeats 4 > /tmp/kt-$b.txt 2>&1
  sed -n '/kernel (device time)/,$p' /tmp/kt-$b.txt > $OUT/kernel-times-$b.txt
  timeout -k 5 60 $B/$b synth --only layers --rows 1 16 --repeats 10 > $OUT/layers-$b.txt 2>&1
done
for b in plumb plumb-b; do
  echo "== $b"; grep -E "^fp8 rows +wq_b|^experts .* (1|16) " $OUT/kernels-$b.txt; head -12 $OUT/kernel-times-$b.txt; grep -E "^43" $OUT/layers-$b.txt
done
echo "t=$SECONDS"
