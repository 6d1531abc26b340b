#!/usr/bin/env bash
# Every selector over the datasets of DATA (default: this project's
# data/local-2core.csv and two public ORFEO campaigns) x seeds 1-5 x full/small training parts
# (procs split, 30% held out), as one markdown table: per column the mean
# over seeds of the share of the oracle's geometric-mean speed-up over
# default, in brackets the share of picks >10% slower than default.
# Run from the repository root: bash experiments/seeds.sh (needs python3;
# BIN=path/to/collsel uses an existing build).
set -euo pipefail
if [ -z "${BIN:-}" ]; then
  cargo build --release --quiet
fi
bin=${BIN:-target/release/collsel}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
data=${DATA:-data/local-2core.csv ../shared/data/derin_orfeo_epyc.csv ../shared/data/zampar_orfeo_thin_2024feb.csv}
for csv in $data; do
  name=$(basename "$csv" .csv)
  for seed in 1 2 3 4 5; do
    for variant in full small; do
      extra=()
      [ "$variant" = small ] && extra=(--small-train)
      "$bin" evaluate --train "$csv" --split procs --test-fraction 0.3 --seed "$seed" \
        "${extra[@]}" --format json --out "$out/$name.$seed.$variant.json" 2>/dev/null
    done
  done
done
python3 - "$out" <<'PY'
import collections, glob, json, sys
cells = collections.defaultdict(list)
names = []
for f in sorted(glob.glob(sys.argv[1] + "/*.json")):
    dataset, _, variant, _ = f.split("/")[-1].rsplit(".", 3)
    selectors = json.load(open(f))["selectors"]
    oracle = next(s for s in selectors if s["name"] == "oracle")["geomean_speedup_vs_default"]
    for s in selectors:
        if s["name"] not in names:
            names.append(s["name"])
        if s["geomean_speedup_vs_default"] is not None:
            cells[(s["name"], dataset, variant)].append(
                (s["geomean_speedup_vs_default"] / oracle, s["worse_than_default_10pct_rate"]))
columns = sorted({(d, v) for (_, d, v) in cells})
print("| selector | " + " | ".join(f"{d.split('_')[0]} {v}" for d, v in columns) + " | mean |")
print("|---" * (len(columns) + 2) + "|")
for name in names:
    if name == "oracle" or not all(cells[(name, d, v)] for d, v in columns):
        continue
    shares = []
    row = []
    for d, v in columns:
        c = cells[(name, d, v)]
        share = sum(x[0] for x in c) / len(c)
        worse = sum(x[1] for x in c) / len(c)
        shares.append(share)
        row.append(f"{100 * share:.1f}% ({100 * worse:.1f}%)")
    print(f"| {name} | " + " | ".join(row) + f" | {100 * sum(shares) / len(shares):.1f}% |")
PY
