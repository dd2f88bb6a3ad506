#!/usr/bin/env bash
# Session 10 call 2: where a layer's time goes at one row. nsys (if present) traces the graph's kernels with their
# gaps; ncu lists every kernel's duration alone; the experts gate/up pass's SASS with stall samples.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
NSYS=$(command -v nsys || ls /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys /usr/local/cuda/nsight-systems*/bin/nsys 2>/dev/null | head -1)
echo "nsys: ${NSYS:-none}"; ls /usr/local/cuda/ | head -30
for cfg in window csa; do
  if [[ -n "$NSYS" ]]; then
    timeout -k 5 120 $NSYS profile -o /tmp/$cfg --force-overwrite true -t cuda --cuda-graph-trace=node $B/plumb synth --only layers --rows 1 --repeats 3 --config .device/$cfg-config.json > /tmp/nsys-$cfg.log 2>&1 || tail -5 /tmp/nsys-$cfg.log
    timeout -k 5 120 $NSYS stats -r cuda_gpu_trace -f csv -o /tmp/$cfg-trace /tmp/$cfg.nsys-rep > /dev/null 2>&1
    ls /tmp/$cfg-trace* 2>/dev/null; f=$(ls /tmp/$cfg-trace*.csv 2>/dev/null | head -1)
    [[ -n "$f" ]] && gzip -c "$f" > $OUT/$cfg-trace.csv.gz
  fi
  PLUMB_CUDA_GRAPHS=0 timeout -k 5 120 /usr/local/cuda/bin/ncu --clock-control none --launch-count 400 --csv --metrics gpu__time_duration.sum \
    $B/plumb synth --only layers --rows 1 --repeats 1 --config .device/$cfg-config.json > /tmp/ncu-$cfg.csv 2>/tmp/ncu-$cfg.err
  gzip -c /tmp/ncu-$cfg.csv > $OUT/ncu-$cfg.csv.gz; tail -2 /tmp/ncu-$cfg.err
  echo "t=$SECONDS"
done
PLUMB_CUDA_GRAPHS=0 timeout -k 5 120 /usr/local/cuda/bin/ncu --clock-control none --set full --kernel-name regex:'experts_pass_kernel' --launch-count 2 -o /tmp/exp \
  $B/plumb synth --only layers --rows 1 --repeats 1 --config .device/window-config.json > /tmp/exp.log 2>&1 || tail -3 /tmp/exp.log
/usr/local/cuda/bin/ncu -i /tmp/exp.ncu-rep --page source --print-source sass --csv 2>/dev/null | gzip > $OUT/exp-sass.csv.gz
/usr/local/cuda/bin/ncu -i /tmp/exp.ncu-rep --page details 2>/dev/null | gzip > $OUT/exp-details.txt.gz
ls -la $OUT; echo "t=$SECONDS"
