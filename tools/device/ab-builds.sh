#!/usr/bin/env bash
# On the GPU machine, from the repo root with .device/ carried: kernel experiments against main in one call.
# .device/bin/plumb is A (main); each .device/bin/plumb-* is an experiment (scripts/device-bundle-ab builds them
# all from branches). A variant may carry environment settings after
# an @, e.g. AB="plumb plumb-b plumb-b@PLUMB_CUDA_PDL=0" (default: plumb and every plumb-*). .device/ids.txt:
# comma-separated token ids < 1024. Checks each variant's tiny-model logits and MTP logits against A's at chunk 1
# and 16 and each experiment binary's contract, then times them all: synth kernel classes, per-kernel device times
# at 1 row, and the layers at 1 and 16 rows. Variants run one after another for each measurement, so a difference
# under ~5% between them is noise. Outputs: every file in $OUT/ab-builds.tgz (the device tool brings back only a
# few files), and checks.txt and summary.txt beside it. LIGHT=1 skips the per-kernel timer run and the second
# round of layers (about 40 s a build less, for a call short of device time); KERNELS=0 skips the kernel classes too. CONTRACTS="plumb-a plumb-b" runs the
# contract (about 45 s) for those experiments only.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; B=.device/bin; SECONDS=0
bash tools/device/unpack.sh  # the bundle scripts zip the binaries (and device-bundle-node the libraries)
FINAL=${OUT:-/tmp/out}; OUT=$(mktemp -d)  # the working files; packed into $FINAL at the end
mkdir -p "$FINAL"
read -r -a VARIANTS <<< "${AB:-plumb $(cd $B && ls plumb-* 2>/dev/null | tr '\n' ' ')}"
# cmd VARIANT: the command line that runs the variant (env, its settings, its binary)
cmd() { local e=""; [[ $1 == *@* ]] && e=${1#*@}; echo "env ${e//,/ } $B/${1%%@*}"; }
tag() { echo "${1//[@=,]/_}"; }
for v in "${VARIANTS[@]}"; do [[ $v == *@* ]] || echo "$v: $($B/$v version)"; done | tee $OUT/versions.txt
I=$(cat .device/ids.txt)
for v in "${VARIANTS[@]}"; do for c in 1 16; do t=$(tag $v)
  timeout -k 5 60 $(cmd $v) logits --backend cuda --ids "$I" --chunk $c --out /tmp/$t-$c.bin --mtp-out /tmp/$t-$c.mtp --json /tmp/$t-$c.json >/dev/null 2>&1 || echo "$v chunk $c failed"
done; done
{ for v in "${VARIANTS[@]:1}"; do t=$(tag $v); for c in 1 16; do
    cmp -s /tmp/plumb-$c.bin /tmp/$t-$c.bin && cmp -s /tmp/plumb-$c.mtp /tmp/$t-$c.mtp && echo "$v chunk $c: bit-identical to A" || echo "$v chunk $c: DIFFERS from A"
  done; done
  # fingerprints of A's output, so a later call can compare its bits with this one's
  for c in 1 16; do echo "A chunk $c sha256: $(cat /tmp/plumb-$c.bin /tmp/plumb-$c.mtp | sha256sum | cut -c1-16)"; done
  for v in "${VARIANTS[@]:1}"; do
    [[ $v == *@* || ( -n ${CONTRACTS:-} && " $CONTRACTS " != *" $v "* ) ]] && continue  # CONTRACTS: only these
    echo "$v contract: $(timeout -k 5 150 $B/$v contract --backend cuda 2>&1 | tail -1)"
  done
} | tee $OUT/checks.txt
echo "t=$SECONDS"
for v in "${VARIANTS[@]}"; do t=$(tag $v)
  # settings that change graph launches only are skipped (kernels alone and the timer run no graphs); SETTINGS_KERNELS=1
  # times them too, for settings that change kernels
  [[ $v == *@* && ${SETTINGS_KERNELS:-0} != 1 ]] && continue
  [[ ${KERNELS:-1} == 0 ]] && continue  # KERNELS=0: no kernel classes (a call that times the rounds itself)
  timeout -k 5 150 $(cmd $v) synth --only kernels > $OUT/kernels-$t.txt 2>&1
  [[ ${LIGHT:-0} == 1 ]] && continue
  PLUMB_CUDA_KERNEL_TIMES=1 timeout -k 5 60 $(cmd $v) synth --only layers --rows 1 --repeats 4 > /tmp/kt-$t.txt 2>&1
  sed -n '/kernel (device time)/,$p' /tmp/kt-$t.txt > $OUT/kernel-times-$t.txt
done
echo "t=$SECONDS"
REPS="1 2"; [[ ${LIGHT:-0} == 1 ]] && REPS=1
for rep in $REPS; do for v in "${VARIANTS[@]}"; do t=$(tag $v)
  timeout -k 5 60 $(cmd $v) synth --only layers --rows 1 16 --repeats 10 > $OUT/layers-$t-$rep.txt 2>&1
done; done
for v in "${VARIANTS[@]}"; do t=$(tag $v)
  echo "== $v"; [[ -s $OUT/kernels-$t.txt ]] && { grep -E "^fp8 rows +(wq_b|wo_b)|^experts .* (1|16) " $OUT/kernels-$t.txt; head -12 $OUT/kernel-times-$t.txt 2>/dev/null; }
  # the timer's totals: launches and summed device time (each kernel with a node gap the graphs hide)
  [[ -s $OUT/kernel-times-$t.txt ]] && awk 'NR > 1 && NF >= 6 { ms += $4; n += $3 } END { printf "kernel timer: %d launches, %.2f ms\n", n, ms }' $OUT/kernel-times-$t.txt
  for rep in $REPS; do grep -hE "^43" $OUT/layers-$t-$rep.txt; done
done | tee $OUT/summary.txt
cp $OUT/checks.txt $OUT/summary.txt "$FINAL"/ && tar -czf "$FINAL"/ab-builds.tgz -C $OUT .
echo "t=$SECONDS"
