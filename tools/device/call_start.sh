# Sourced first by a call script, on the GPU machine from the repo root with .device/ carried:
#   source tools/device/call_start.sh
# Sets LD_LIBRARY_PATH for the bundled libraries, B=.device/bin (binaries unzipped), R (a scratch folder the
# script tars into $OUT at its end), SECONDS from zero, and writes the GPU's name, driver and clock to $R/gpu.txt.
# bits_against_main VARIANT...: each variant's tiny-model logits and MTP logits against main's (.device/bin/plumb)
# at chunk 1 and 16 (tools/device/ab-builds.sh, light), into $R/bits.txt and $OUT/bits.txt.
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
