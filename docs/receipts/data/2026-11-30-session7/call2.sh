#!/usr/bin/env bash
# session 7, call 2: main cb17387 (no prefetch + typed hc_mix) against four experiment branches
set -uo pipefail
AB="plumb plumb-next-experts-bulk plumb-next-experts-staged plumb-next-attention-heads plumb-next-indexer-smem" timeout -k 5 570 bash tools/device/ab-builds.sh
