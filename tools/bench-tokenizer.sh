#!/usr/bin/env bash
# Tokenizer speed: plumb beside the official HF tokenizers library (npm `tokenizers`, native Rust code) on the
# same generated text in the same run, one thread each, in two modes: the whole text in one encode call, and
# calls of about 4 KB (prompt-sized). Prints a table, then one JSON line with every result; also says whether
# both produced the same ids (SHA-256 of the ids).
#
#   tools/bench-tokenizer.sh [TOKENIZER_JSON_OR_MODEL_DIR] [MEGABYTES]
#
# Defaults: ../shared/fixtures/tokenizer/dsv4 (DeepSeek-V4's tokenizer) and 3 MB. Needs build/plumb and
# tools/node/node_modules (scripts/setup makes both).
set -euo pipefail
cd "$(dirname "$0")/.."

model="${1:-../shared/fixtures/tokenizer/dsv4}"
megabytes="${2:-3}"
tokenizer_json="$model"
[ -d "$model" ] && tokenizer_json="$model/tokenizer.json"
[ -f "$tokenizer_json" ] || { echo "bench-tokenizer: no tokenizer.json at $model" >&2; exit 1; }
[ -x build/plumb ] || { echo "bench-tokenizer: build/plumb is missing (run scripts/setup)" >&2; exit 1; }
[ -d tools/node/node_modules/tokenizers ] || (cd tools/node && npm ci --no-audit --no-fund --loglevel=error)

text="$(mktemp)"
trap 'rm -f "$text"' EXIT
golden="$(dirname "$tokenizer_json")/golden.jsonl"
node tools/node/bench_text.js "$megabytes" $([ -f "$golden" ] && echo "$golden") > "$text"

results=()
printf '%-28s %12s %12s %8s  %s\n' "mode" "plumb MB/s" "HF MB/s" "ratio" "same ids"
# The whole text in one call is slow for HF (it grows faster than the text), so it gets one timed run.
for spec in "0 1" "4096 3"; do
  read -r chunk repeat <<< "$spec"
  plumb_json="$(build/plumb tokenize "$model" --bench "$text" --repeat "$repeat" --chunk-bytes "$chunk")"
  hf_json="$(node tools/node/bench_tokenizer.js "$tokenizer_json" "$text" "$repeat" "$chunk")"
  results+=("$plumb_json" "$hf_json")
  node -e '
    const [p, h, chunk] = [JSON.parse(process.argv[1]), JSON.parse(process.argv[2]), Number(process.argv[3])];
    const mode = chunk ? `calls of ~${chunk} bytes` : `one call (${(p.bytes / 1e6).toFixed(1)} MB)`;
    console.log(`${mode.padEnd(28)} ${p.mb_per_s.toFixed(2).padStart(12)} ${h.mb_per_s.toFixed(2).padStart(12)} ` +
                `${(p.mb_per_s / h.mb_per_s).toFixed(1).padStart(7)}x  ${p.token_sha256 === h.token_sha256 ? "yes" : "NO"}`);
  ' "$plumb_json" "$hf_json" "$chunk"
done
printf '[%s]\n' "$(IFS=,; echo "${results[*]}")"
