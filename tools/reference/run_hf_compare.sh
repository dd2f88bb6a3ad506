#!/usr/bin/env bash
# Runs the HF comparison on the GPU machine over a folder from make_oracle_logits.sh, keeping its console output and
# JSON next to the inputs:  tools/reference/run_hf_compare.sh [FOLDER]   (default: hf-compare)
# Uses $PYTHON, else python3 when it has torch and transformers, else /opt/torch/.venv/bin/python3.
set -euo pipefail

folder=${1:-hf-compare}
python=${PYTHON:-python3}
if ! "$python" -c "import torch, transformers" 2> /dev/null && [[ -x /opt/torch/.venv/bin/python3 ]]; then
  python=/opt/torch/.venv/bin/python3
fi
[[ -f "$folder/manifest.json" ]] || { echo "error: $folder/manifest.json missing (run make_oracle_logits.sh)" >&2; exit 1; }
"$python" "$(dirname "$0")/compare_hf.py" "$folder" --json "$folder/hf_compare.json" 2>&1 | tee "$folder/hf_compare.txt"
exit "${PIPESTATUS[0]}"
