#!/usr/bin/env bash
# Two builds side by side on `evaluate --split procs --test-fraction 0.3`,
# seeds 1-5, every data/ and ../shared/data/ file: auto's captured share
# (its geometric-mean speed-up over default / the oracle's) and its share
# of configurations >10% slower than default, per seed.
#   A=/path/to/old/collsel B=/path/to/new/collsel bash experiments/seeds_ab.sh
# (eighth session: A built from 4134acb, B from a1f7410; table in
# experiments/extrapolation.md, "Eighth session"). EXTRA: more files (e.g.
# ../shared/data/colls/*.csv ../shared/data/next/*.csv); a file evaluate
# refuses prints '-'.
set -euo pipefail
cd "$(dirname "$0")/.."
for f in $(ls data/*.csv ../shared/data/*.csv ${EXTRA:-} | awk -F/ '!seen[$NF]++'); do
  for side in A B; do
    bin=${!side}
    s=""
    for seed in 1 2 3 4 5; do
      v=$("$bin" evaluate --train "$f" --split procs --test-fraction 0.3 --seed "$seed" \
        --format json 2>/dev/null | python3 -c "
import json, sys
try:
    d = {s['name']: s for s in json.load(sys.stdin)['selectors']}
    a, o = d['auto'], d['oracle']
    print('%.3f/%.0f' % (a['geomean_speedup_vs_default'] / o['geomean_speedup_vs_default'],
                         100 * a['worse_than_default_10pct_rate']))
except Exception:
    print('-')" || true)
      s="$s $v"
    done
    echo "$(basename "$f" .csv) $side $s"
  done
done
