#!/usr/bin/env bash
# Evaluates every selector on each dataset of DATA (default: this project's
# data/local-2core.csv and two public ORFEO campaigns from ../shared/data) with whole communicator
# sizes held out (30% of the procs values, seed 1), once with the full
# training part and once with the small one (every third training procs
# value). Writes experiments/results/evaluate/<dataset>/{full,small}.{md,json},
# plots in experiments/results/evaluate/<dataset>/plots-{full,small}/ and
# experiments/results/evaluate/summary.md (rows: selectors; columns: datasets; cells:
# geometric-mean speed-up over default, and the share of the oracle's gain;
# then the issue's targets, met or missed, per dataset).
# Run from the repository root: bash experiments/evaluate.sh
# (BIN=path/to/collsel uses an existing build instead of building one.)
set -euo pipefail
if [ -z "${BIN:-}" ]; then
  cargo build --release --quiet
fi
bin=${BIN:-target/release/collsel}
out=experiments/results/evaluate
data=${DATA:-data/local-2core.csv ../shared/data/derin_orfeo_epyc.csv ../shared/data/zampar_orfeo_thin_2024feb.csv}
mkdir -p "$out"
for csv in $data; do
  name=$(basename "$csv" .csv)
  mkdir -p "$out/$name"
  for variant in full small; do
    extra=()
    [ "$variant" = small ] && extra=(--small-train)
    "$bin" evaluate --train "$csv" --split procs --test-fraction 0.3 --seed 1 \
      "${extra[@]}" --format markdown --out "$out/$name/$variant.md" \
      --plots "$out/$name/plots-$variant"
    "$bin" evaluate --train "$csv" --split procs --test-fraction 0.3 --seed 1 \
      "${extra[@]}" --format json --out "$out/$name/$variant.json"
  done
done
# The same targets over five splits (seeds 1-5, full training set): how much
# of a single split's verdict is the draw of the held-out procs values.
for csv in $data; do
  name=$(basename "$csv" .csv)
  mkdir -p "$out/$name/seeds"
  for seed in 1 2 3 4 5; do
    "$bin" evaluate --train "$csv" --split procs --test-fraction 0.3 --seed "$seed" \
      --format json --out "$out/$name/seeds/$seed.json"
  done
done
python3 - "$out" <<'PY'
import json, pathlib, sys
out = pathlib.Path(sys.argv[1])
sets = sorted(p.name for p in out.iterdir() if (p / "full.json").is_file())
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
lines += ["## Targets (full training set)", "",
          "- A: `auto` captures >= 95% of the oracle's geometric-mean speed-up over default;",
          "- B: `auto` is >10% slower than default in <= 2% of test configurations;",
          "- C: the best hybrid beats both the best pure learner and `analytical`.", "",
          "| dataset | A: auto / oracle | B: auto >10% slower | C: best hybrid vs best pure vs analytical |",
          "|---|---|---|---|"]
for s in sets:
    sel = {x["name"]: x for x in json.loads((out / s / "full.json").read_text())["selectors"]}
    g = lambda n: sel[n]["geomean_speedup_vs_default"]
    a = g("auto") / g("oracle")
    b = sel["auto"]["worse_than_default_10pct_rate"]
    hy = max((n for n in sel if n.startswith("hybrid-")), key=g)
    pure = max((n for n in ("knn", "gbm", "gam", "linear") if n in sel), key=g)
    c = g(hy) > g(pure) and g(hy) > g("analytical")
    lines.append(f"| {s} | {a:.1%} {'met' if a >= 0.95 else f'missed by {0.95 - a:.1%}'} "
                 f"| {b:.1%} {'met' if b <= 0.02 else f'missed by {b - 0.02:.1%}'} "
                 f"| {hy} {g(hy):.3f} vs {pure} {g(pure):.3f} vs analytical {g('analytical'):.3f}: "
                 f"{'met' if c else 'missed'} |")
lines.append("")
lines += ["## Targets over seeds 1-5 (full training set; mean and range)", "",
          "| dataset | A: auto / oracle | B: auto >10% slower | C met |",
          "|---|---|---|---|"]
for s in sets:
    A, B, C = [], [], 0
    for f in sorted((out / s / "seeds").glob("*.json")):
        sel = {x["name"]: x for x in json.loads(f.read_text())["selectors"]}
        g = lambda n: sel[n]["geomean_speedup_vs_default"]
        A.append(g("auto") / g("oracle"))
        B.append(sel["auto"]["worse_than_default_10pct_rate"])
        hy = max((n for n in sel if n.startswith("hybrid-")), key=g)
        pure = max((n for n in ("knn", "gbm", "gam", "linear") if n in sel), key=g)
        C += g(hy) > g(pure) and g(hy) > g("analytical")
    lines.append(f"| {s} | {sum(A)/len(A):.1%} ({min(A):.1%}-{max(A):.1%}) "
                 f"| {sum(B)/len(B):.1%} ({min(B):.1%}-{max(B):.1%}) | {C} of {len(A)} |")
lines.append("")
(out / "summary.md").write_text("\n".join(lines))
print((out / "summary.md").read_text())
PY
