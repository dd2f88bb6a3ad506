#!/usr/bin/env bash
# The device tool carries the working tree (tracked and untracked files) with `carry`, 64 MiB in all. The receipts'
# raw data is about 35 MB, so beside three zipped binaries in .device the carry does not fit. For such a call:
#   tools/device/slim_tree.sh out    # the receipt archives over 1 MB leave the working tree (listed in .git/)
#   (the device call)
#   tools/device/slim_tree.sh back   # git restores them
# Do not commit in between: `git commit -a` would record their deletion.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
list=$(git rev-parse --git-dir)/plumb-slim-tree.list
case "${1:-}" in
  out)
    if [[ -f $list ]]; then echo "slim_tree: already out ($list); run 'back' first" >&2; exit 1; fi
    git ls-files -z docs/receipts/data | xargs -0 sh -c 'find "$@" -maxdepth 0 -size +1M' find > "$list.new"
    mv "$list.new" "$list"  # only a complete list marks the tree as slimmed
    xargs rm -f < "$list"
    echo "slim_tree: $(wc -l < "$list") files out, $(git ls-files -z | du -ch --files0-from=- 2>/dev/null | tail -1 | cut -f1) tracked left"
    ;;
  back)
    if [[ ! -f $list ]]; then echo "slim_tree: nothing out" >&2; exit 0; fi
    xargs git checkout -- < "$list"
    rm "$list"
    echo "slim_tree: restored"
    ;;
  *) echo "usage: tools/device/slim_tree.sh out|back" >&2; exit 2 ;;
esac
