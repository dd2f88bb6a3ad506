#!/usr/bin/env bash
# Session 31 call 4 (carry [".device"], timeout_s 420): main bef5afa's round against its own switches off
# (pairs apart, the deal from the end and the even loop: main 921541d's code paths), alternated for about 330 s,
# to firm up call 1's 10 repetitions.
set -uo pipefail
source tools/device/call_start.sh
STOP_AFTER=330 OUT=$R bash tools/device/alternate.sh plumb \
  plumb@PLUMB_EXPERTS_PAIRS_APART=0,PLUMB_EXPERTS_DEAL_FROM_END=0,PLUMB_EXPERTS_EVEN_LOOP=0 > /dev/null
cp $R/medians.txt $R/rounds.txt $OUT/; cat $R/medians.txt
tar -czf $OUT/call.tgz -C $R .
echo "t=$SECONDS"
