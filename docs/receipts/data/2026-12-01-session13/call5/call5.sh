#!/usr/bin/env bash
# Session 13 call 5: where a CSA/4 layer's attention time goes at 1, 4 and 16 rows (main 43d0444): every kernel of
# one CSA/4 layer alone under ncu (release config with every layer CSA/4), for the next session's leads.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib; SECONDS=0; B=.device/bin
for f in $B/*.gz; do gunzip -f "$f"; done; chmod +x $B/*
R=$(mktemp -d)
for rows in 1 4 16; do
  PLUMB_CUDA_GRAPHS=0 timeout -k 5 120 /usr/local/cuda/bin/ncu --clock-control none --launch-count 80 \
    --metrics gpu__time_duration.sum,smsp__inst_executed.sum --csv \
    $B/plumb synth --only layers --rows $rows --repeats 1 --config .device/csa-config.json > $R/ncu-csa-rows$rows.csv 2> $R/ncu-csa-rows$rows.err
  echo "== rows $rows"
  python3 - "$R/ncu-csa-rows$rows.csv" <<'PY'
import csv, sys, re, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
head, body = rows[0], rows[1:]
k, g, m, v = head.index("Kernel Name"), head.index("Grid Size"), head.index("Metric Name"), head.index("Metric Value")
u = head.index("Metric Unit")
scale = {"nsecond": 1e-3, "usecond": 1.0, "msecond": 1e3}
t = collections.OrderedDict()
for r in body:
    name = re.sub(r"\(.*", "", r[k]).replace("(anonymous namespace)::", "").split("::")[-1]
    key = (name, r[g])
    t.setdefault(key, {"n": 0, "us": 0.0, "inst": 0.0})
    if r[m] == "gpu__time_duration.sum":
        t[key]["n"] += 1; t[key]["us"] += float(r[v].replace(",", "")) * scale.get(r[u], 1.0)
    else:
        t[key]["inst"] += float(r[v].replace(",", ""))
total = sum(x["us"] for x in t.values())
for (name, grid), x in sorted(t.items(), key=lambda kv: -kv[1]["us"]):
    print(f"{name[:36]:36s} {grid:>14s} {x['n']:3d} {x['us']:9.1f} us {x['inst']/max(x['n'],1)/1e6:7.2f} M inst")
print(f"total {total:.1f} us over {sum(x['n'] for x in t.values())} launches")
PY
done | tee $R/summary.txt
tar -czf $OUT/call5.tgz -C $R .; cp $R/summary.txt $OUT/
echo "t=$SECONDS"
