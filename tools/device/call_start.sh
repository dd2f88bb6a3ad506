# Sourced first by a call script, on the GPU machine from the repo root with .device/ carried:
#   source tools/device/call_start.sh
# Sets LD_LIBRARY_PATH for the bundled libraries, B=.device/bin (binaries unzipped), R (a scratch folder the
# script tars into $OUT at its end), SECONDS from zero, and writes the GPU's name, driver and clock to $R/gpu.txt.
# bits_against_main VARIANT...: each variant's tiny-model logits and MTP logits against main's (.device/bin/plumb)
# at chunk 1 and 16 (tools/device/ab-builds.sh, light), into $R/bits.txt and $OUT/bits.txt.
# cuda_checks TESTBIN BIN ENTRY SETTING...: under each setting (VAR=VALUE, or "-" for none) the CUDA tests of
# $B/TESTBIN and the contract entry ENTRY of $B/BIN, a line each, into $R/tests.txt and $OUT/tests.txt.
# classes SETTING...: `synth --only kernels` of $E under each setting ("VAR=1 VAR2=0", or "-"), its lines matching
# $CLASSES (default ^experts), into $R/classes.txt and $OUT/classes.txt.
# ncu_spread ROWS LAUNCHES SETTING...: ncu of $E's first LAUNCHES experts pass launches at ROWS rows under each setting:
# duration and per-multiprocessor instructions and active cycles (min, avg, max), and any metrics named in
# $NCU_EXTRA (comma-separated, e.g. per-scheduler smsp__inst_executed.max), into $R/ncu-summary.txt and
# $OUT/ncu-summary.txt (appended).
export LD_LIBRARY_PATH=$PWD/.device/lib
SECONDS=0
B=.device/bin
bash tools/device/unpack.sh
R=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$R/gpu.txt"

bits_against_main() {
  CONTRACTS="none" LIGHT=1 KERNELS=0 AB="plumb $*" OUT=/tmp/ab bash tools/device/ab-builds.sh > /dev/null
  cp /tmp/ab/checks.txt "$R/bits.txt"
  tee "$OUT/bits.txt" < "$R/bits.txt"
  echo "t=$SECONDS"
}

settings_tag() { if [[ $* == - ]]; then echo none; else echo "${*//[ =]/-}"; fi; }
settings_env() { [[ $* == - ]] && return; echo "$*"; }

cuda_checks() {
  local testbin=$1 bin=$2 entry=$3 v; shift 3
  for v in "$@"; do
    local t; t=$(settings_tag "$v")
    echo "$v CUDA tests: $(env $(settings_env "$v") timeout -k 5 100 "$B/$testbin" --gtest_filter='*cuda*:Cuda*' 2>&1 |
      tee "$R/cuda-tests-$t.log" | grep -E '^\[  (PASSED|FAILED)' | tr '\n' ' ')"
    echo "$v $(env $(settings_env "$v") timeout -k 5 60 "$B/$bin" contract --backend cuda --only "$entry" 2>&1 |
      tee "$R/contract-$entry-$t.txt" | grep -E "^$entry")"
  done | tee -a "$R/tests.txt" "$OUT/tests.txt"
  echo "t=$SECONDS"
}

classes() {
  local v
  for v in "$@"; do
    env $(settings_env "$v") timeout -k 5 80 "$B/$E" synth --only kernels > "$R/kernels-$(settings_tag "$v").txt" 2>&1
    echo "$v"; grep -E "${CLASSES:-^experts}" "$R/kernels-$(settings_tag "$v").txt"
  done | tee -a "$R/classes.txt" "$OUT/classes.txt"
  echo "t=$SECONDS"
}

ncu_spread() {
  local rows=$1 launches=$2 v ncu; shift 2
  ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
  for v in "$@"; do
    local f; f="$R/ncu-rows$rows-$(settings_tag "$v").txt"
    env $(settings_env "$v") timeout -k 5 60 "$ncu" --clock-control none --cache-control none \
      --kernel-name regex:experts_pass --launch-count "$launches" \
      --metrics sm__inst_executed.min,sm__inst_executed.max,sm__inst_executed.avg,sm__cycles_active.min,sm__cycles_active.max,gpu__time_duration.sum${NCU_EXTRA:+,$NCU_EXTRA} \
      "$B/$E" synth --only kernels --rows "$rows" --repeats 1 > "$f" 2>&1
    echo "== $rows rows, $v"
    grep -E "^  [^ ]|sm__|smsp__|gpu__|dram__|lts__" "$f" | sed -E 's/\(anonymous namespace\):://g; s/plumb::cuda::(ops::)?//g; s/, Context.*//; s/ +/ /g'
  done | tee -a "$R/ncu-summary.txt" "$OUT/ncu-summary.txt"
  echo "t=$SECONDS"
}
