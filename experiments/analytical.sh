#!/usr/bin/env bash
# The analytical model on every dataset with 4+ procs values (data/ and
# ../shared/data/), under the two protocols of ../shared/tools/selection_table.py:
# its selection figures next to `default`, its pairwise ranking accuracy on the
# held-out part (forced candidates only, and with `default`), and the best
# hybrid against the best plain learner.
# Writes experiments/results/analytical/table.md.
# Run from the repository root: bash experiments/analytical.sh
# BEFORE_BIN=path: also the ranking accuracy of an older build that prints
# "PAIRWISE pairs accuracy" on stderr (commit c5b6c23 with
# experiments/attic/analytical-before.patch applied), for the before/after columns.
set -euo pipefail
[ -z "${BIN:-}" ] && cargo build --release --quiet
bin=${BIN:-target/release/collsel}
out=experiments/results/analytical
splits=$(mktemp -d)
mkdir -p "$out"
files=$(ls data/*.csv ../shared/data/*.csv | awk -F/ '!seen[$NF]++')
python3 experiments/protocols.py "$splits" $files
{
  echo "| file | protocol | default captured | analytical captured | analytical speed-up | analytical >10% slower | ranking forced (before) | ranking with default | best plain learner | best hybrid |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  for train in "$splits"/*.train.csv; do
    base=${train%.train.csv}
    name=$(basename "$base")
    before=""
    if [ -n "${BEFORE_BIN:-}" ]; then
      before=$("$BEFORE_BIN" evaluate --train "$train" --test "$base.test.csv" --learners knn \
        --format json 2>&1 >/dev/null | awk '/^PAIRWISE/ {print $3}')
    fi
    "$bin" evaluate --train "$train" --test "$base.test.csv" --format json 2>/dev/null |
      python3 experiments/analytical_row.py "$name" "$before"
  done
} > "$out/table.md"
rm -rf "$splits"
cat "$out/table.md"
