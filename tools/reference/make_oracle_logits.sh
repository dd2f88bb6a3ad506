#!/usr/bin/env bash
# Writes the plumb side of the HF comparison (tools/reference/compare_hf.py) into OUT: three gen-tiny checkpoints
# (seeds 1, 2, 3) and, for each, the float64-oracle logits of prompts of 1 to 300 random token ids, with every
# block's routing and indexer choices (for tie detection) and, for the 64-token prompt, every block's output streams
# (to locate a disagreement). Run on the CPU machine from the repository root after building:
#   tools/reference/make_oracle_logits.sh [OUT] [PLUMB]      (defaults: hf-compare, build/plumb)
set -euo pipefail

out=${1:-hf-compare}
plumb=${2:-build/plumb}
lengths=(1 2 5 17 64 150 300)
seeds=(1 2 3)

[[ -x "$plumb" ]] || { echo "error: $plumb not found; build first (cmake --build build -j2)" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out"
cases=()
for seed in "${seeds[@]}"; do
  "$plumb" gen-tiny "$out/ckpt-seed$seed" --seed "$seed" > /dev/null
  for len in "${lengths[@]}"; do
    # Token ids: a fixed pseudo-random sequence per (seed, length), reproducible anywhere python3 runs.
    ids=$(python3 -c "import random; r = random.Random($seed * 1000 + $len); print(','.join(str(r.randrange(1024)) for _ in range($len)))")
    name="seed$seed-len$len"
    extra=()
    [[ $len == 64 ]] && extra=(--streams-out "$out/$name.streams.bin")
    "$plumb" logits "$out/ckpt-seed$seed" --ids "$ids" --numerics oracle --choices \
      --out "$out/$name.bin" --json "$out/$name.json" "${extra[@]}"
    cases+=("{\"name\": \"$name\", \"checkpoint\": \"ckpt-seed$seed\", \"seed\": $seed, \"length\": $len}")
  done
done
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
{
  echo "{\"plumb_commit\": \"$commit\", \"cases\": ["
  (IFS=$',\n'; echo "${cases[*]}")
  echo "]}"
} > "$out/manifest.json"
echo "wrote ${#cases[@]} cases to $out (plumb $commit)"
