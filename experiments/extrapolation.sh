#!/usr/bin/env bash
# Decisions where nothing was measured, on every dataset with 4+ procs values
# (data/ and ../shared/data/):
#  1. ../shared/tools/selection_table.py: held-out procs ("within") and
#     extrapolation to larger jobs ("extrap"), every selector next to default
#     and naive (captured share of the oracle's speed-up / share >10% slower
#     than default);
#  2. --split source: one campaign of a machine against another (palacios and
#     cusmafait, EPYC files together, THIN files together);
#  3. rules per communicator size in the exported Open MPI file for the
#     README's example jobs (trained/default).
# Writes experiments/results/extrapolation/{selection.md,source.md,rules.md}.
# Run from the repository root: bash experiments/extrapolation.sh
set -euo pipefail
[ -z "${BIN:-}" ] && cargo build --release --quiet
bin=${BIN:-target/release/collsel}
out=experiments/results/extrapolation
mkdir -p "$out"
files=$(ls data/*.csv ../shared/data/*.csv | awk -F/ '!seen[$NF]++')
python3 ../shared/tools/selection_table.py "$bin" $files > "$out/selection.md"
{
  for machine in epyc thin; do
    echo "## palacios + cusmafait, ORFEO ${machine^^}: leave one campaign out"
    echo
    "$bin" evaluate --train ../shared/data/palacios_orfeo_$machine.csv \
      ../shared/data/cusmafait_orfeo_$machine.csv --split source 2>/dev/null | sed -n '3,22p'
    echo
  done
} > "$out/source.md"
{
  echo "| job | rules (message-size ranges) |"
  echo "|---|---:|"
  for job in "1 8" "2 24" "4 32"; do
    set -- $job
    n=$("$bin" predict --model trained/default --nodes "$1" --ppn "$2" --format ompi-rules |
      grep -cE '^[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+')
    echo "| $1 x $2 | $n |"
  done
} > "$out/rules.md"
cat "$out/selection.md" "$out/source.md" "$out/rules.md"
