#!/usr/bin/env bash
# On the GPU machine, from the repo root with .device/ and .device-node/ carried (scripts/device-bundle, then
# scripts/device-bundle-node): the end-to-end server tests in tests/e2e (the openai client against `plumb serve`,
# each reply's token_sha256 against `plumb run` alone; the 64-client load test) with .device/bin/plumb, whose
# backend `auto` picks CUDA there. TAP output under $OUT, a summary line a test file on stdout.
#   bash tools/device/e2e.sh            # openai and load
#   bash tools/device/e2e.sh openai
set -uo pipefail
bash tools/device/unpack.sh
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
export LD_LIBRARY_PATH=$PWD/.device/lib PLUMB_BINARY=$PWD/.device/bin/plumb PLUMB_CACHE_DIR=/tmp/e2e-cache
export NODE_PATH=/tmp/node/node_modules
tests=("$@"); ((${#tests[@]})) || tests=(openai load)
backend=$(.device/bin/plumb run --ids 1,2,3 -n 2 --temperature 0 --json 2>/dev/null | grep -o '"backend": *"[a-z]*"')
echo "plumb run: $backend"  # the backend auto picked
for t in "${tests[@]}"; do
  timeout -k 5 300 /tmp/node/node --test "tests/e2e/$t.test.js" > "$OUT/e2e-$t.txt" 2>&1
  echo "e2e $t: $(grep -E '^# (tests|pass|fail)' "$OUT/e2e-$t.txt" | tr '\n' ' ')"
done
