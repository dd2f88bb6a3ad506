#!/usr/bin/env bash
# On the GPU machine, from the repo root: unzips what the bundle scripts zipped (.device/bin/*.gz, .device/lib/*.gz)
# and, with .device-node/ carried (scripts/device-bundle-node), puts node and the openai client under /tmp/node
# (then: NODE_PATH=/tmp/node/node_modules /tmp/node/node). Safe to run twice.
set -euo pipefail
for f in .device/bin/*.gz .device/lib/*.gz; do
  if [[ -f $f ]]; then gunzip -f "$f"; fi
done
chmod +x .device/bin/*
if [[ -d .device-node ]]; then
  mkdir -p /tmp/node
  xz -dc .device-node/node.xz > /tmp/node/node && chmod +x /tmp/node/node
  tar -xJf .device-node/openai.tar.xz -C /tmp/node
fi
