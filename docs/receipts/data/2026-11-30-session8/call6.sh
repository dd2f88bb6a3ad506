#!/usr/bin/env bash
# Session 8 call 6: main (b7d2efc) against next-fuse-small (quantize in the FP8 linear only where a K split is at
# most 2 blocks). Same bits expected; LIGHT ab-builds.
set -uo pipefail
LIGHT=1 AB="plumb plumb-next-fuse-small" timeout -k 5 190 bash tools/device/ab-builds.sh
cd /tmp && mkdir -p x && tar xzf $OUT/ab-builds.tgz -C x && grep -hE "^fp8 rows .* (1|2|4) " x/kernels-*.txt
