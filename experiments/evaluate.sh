#!/usr/bin/env bash
# Evaluates every selector on every dataset in data/ with whole communicator
# sizes held out (30% of the procs values, seed 1), once with the full
# training part and once with the small one (every third training procs
# value). Writes experiments/results/<dataset>/{full,small}.{md,json} and
# experiments/results/summary.md (rows: selectors; columns: datasets; cells:
# geometric-mean speed-up over default, and the share of the oracle's gain).
# Run from the repository root: bash experiments/evaluate.sh
# (BIN=path/to/bcast-select uses an existing build instead of building one.)
set -euo pipefail
if [ -z "${BIN:-}" ]; then
  cargo build --release --quiet
fi
bin=${BIN:-target/release/bcast-select}
out=experiments/results
mkdir -p "$out"
for csv in data/*.csv; do
  name=$(basename "$csv" .csv)
  mkdir -p "$out/$name"
  for variant in full small; do
    extra=()
    [ "$variant" = small ] && extra=(--small-train)
    for format in markdown json; do
      ext=$([ "$format" = markdown ] && echo md || echo json)
      "$bin" evaluate --train "$csv" --split procs --test-fraction 0.3 --seed 1 \
        "${extra[@]}" --format "$format" --out "$out/$name/$variant.$ext"
    done
  done
done
python3 - "$out" <<'PY'
import json, pathlib, sys
out = pathlib.Path(sys.argv[1])
sets = sorted(p.name for p in out.iterdir() if p.is_dir())
lines = ["# Selector summary (held-out procs, 30%, seed 1)", "",
         "Cells: geometric-mean speed-up over `default` on the test configurations;",
         "in brackets, the captured gain = selector speed-up / oracle speed-up.",
         "Command: `bash experiments/evaluate.sh`.", ""]
for variant in ["full", "small"]:
    reports = {s: json.loads((out / s / f"{variant}.json").read_text()) for s in sets}
    names = [x["name"] for x in reports[sets[0]]["selectors"]]
    lines += [f"## {variant} training set", "",
              "| selector | " + " | ".join(sets) + " |",
              "|---|" + "---:|" * len(sets)]
    for n in names:
        cells = []
        for s in sets:
            sel = {x["name"]: x for x in reports[s]["selectors"]}
            g, o = sel[n]["geomean_speedup_vs_default"], sel["oracle"]["geomean_speedup_vs_default"]
            cells.append(f"{g:.3f} ({g / o:.1%})")
        lines.append(f"| {n} | " + " | ".join(cells) + " |")
    lines.append("")
    lines.append("| share of test configs where the selector is >10% slower than default | "
                 + " | ".join(sets) + " |")
    lines.append("|---|" + "---:|" * len(sets))
    for n in names:
        cells = []
        for s in sets:
            sel = {x["name"]: x for x in reports[s]["selectors"]}[n]
            cells.append(f"{sel['worse_than_default_10pct_rate']:.1%} ({sel['unmeasured_configs']} unmeasured)")
        lines.append(f"| {n} | " + " | ".join(cells) + " |")
    lines.append("")
(out / "summary.md").write_text("\n".join(lines))
print((out / "summary.md").read_text())
PY
