#!/usr/bin/env bash
# Session 29 call 3 (carry [".device"], timeout_s 300), a probe with the branch binary of call 2, queues off: why does
# a grid exactly as wide as the work run 2 rows on the same 6 experts faster (session 28: 43.1 us at 384 blocks)
# than the capped 528-block grid (49 us), when call 2's ncu shows the 528-block grid's multiprocessors end within
# 3% of each other in cycles however uneven their instructions? Caps (PLUMB_EXPERTS_GRID_CAP) of 384, 396 (3 a
# multiprocessor) and 528 blocks, each with the first turn dealt across the blocks (SPREAD=1) and block by block (0).
set -uo pipefail
source tools/device/call_start.sh
E=plumb-next-sm-queues2 Q=PLUMB_EXPERTS_SM_QUEUES V=PLUMB_EXPERTS_EVEN_LOOP C=PLUMB_EXPERTS_GRID_CAP
S=PLUMB_EXPERTS_SPREAD
classes "$Q=0 $V=1" "$Q=0 $V=1 $C=384 $S=1" "$Q=0 $V=1 $C=384 $S=0" "$Q=0 $V=1 $C=528 $S=0" \
  "$Q=0 $V=1 $C=396 $S=1" "$Q=0 $V=1 $C=396 $S=0"
ncu_spread 2 2 "$Q=0 $V=1 $C=384 $S=1" "$Q=0 $V=1 $C=384 $S=0" "$Q=0 $V=1 $C=528 $S=0"
tar -czf $OUT/call.tgz -C $R .
echo "t=$SECONDS"
