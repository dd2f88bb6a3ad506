#!/usr/bin/env bash
# On the GPU machine, from the repo root with .device/ carried (binaries unzipped): the 43-layer round of several
# variants, alternated with the order rotated each repetition (docs/receipts/README.md, "How to measure": a build
# against its own A/B switch). A variant is a binary in .device/bin with optional settings after an @, e.g.
#   tools/device/alternate.sh plumb-next-x plumb-next-x@PLUMB_X=0 plumb-next-x@PLUMB_X=0,PLUMB_Y=0
# Each repetition runs `synth --only layers --rows 1 4 16 --repeats 10` once per variant. It stops after REPS
# repetitions (default 24) or at the first repetition that ends more than STOP_AFTER seconds (default 500) after
# the script started. Writes to $OUT (default /tmp/out): rounds.txt (a line a run: the round at 1 / 4 / 16 rows |
# 4 slots, in us), medians.txt (tools/device/alternation_table.py: each variant's medians; the first variant against
# each other one repetition by repetition: wins, median paired difference, sign test), alternate-runs.tgz (every
# run's output).
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib
B=.device/bin OUT=${OUT:-/tmp/out} REPS=${REPS:-24} STOP_AFTER=${STOP_AFTER:-500}
(($# >= 2)) || { echo "alternate.sh: name two variants or more" >&2; exit 2; }
mkdir -p "$OUT"
R=$(mktemp -d)
V=("$@")
cmd() { local e=""; [[ $1 == *@* ]] && e=${1#*@}; echo "env ${e//,/ } $B/${1%%@*}"; }
for rep in $(seq 1 "$REPS"); do
  for i in $(seq 0 $((${#V[@]} - 1))); do v=${V[$(( (i + rep) % ${#V[@]} ))]}; t=${v//[@=,]/_}
    timeout -k 5 60 $(cmd "$v") synth --only layers --rows 1 4 16 --repeats 10 > "$R/layers-$t-$rep.txt" 2>&1
    one=$(grep -E '^43-layer round +1 slot, as drawn' "$R/layers-$t-$rep.txt" | awk '{printf "%s ", $(NF-3)}')
    slots=$(grep -E '^43-layer round +4 slots, as drawn' "$R/layers-$t-$rep.txt" | awk '{print $(NF-3)}')
    echo "$v rep $rep: $one| 4 slots $slots"
  done
  echo "t=$SECONDS"; ((SECONDS > STOP_AFTER)) && break
done | tee "$OUT/rounds.txt"
python3 tools/device/alternation_table.py "$OUT/rounds.txt" "${V[@]}" | tee "$OUT/medians.txt"
tar -czf "$OUT/alternate-runs.tgz" -C "$R" . && rm -rf "$R"
