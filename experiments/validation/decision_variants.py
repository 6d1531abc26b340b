#!/usr/bin/env python3
"""Which of the kept switches four rules for "held across the jobs" would
keep, and the independent figures of those each drops: the decision in
verify (the spread between jobs pooled over every size, t on its degrees
of freedom), t on the jobs' own degrees of freedom (J-1) with the pooled
spread, and each with the size's own spread where three or more jobs
timed it and that is wider. Counts the kept switches whose independent
figure is below 0.97.

Usage: decision_variants.py RUN_DIR...   (as interval_variants.py)
"""
import collections, math, os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from interval_variants import independent, run_of
from replicas import t975

res = collections.defaultdict(list)
for d in sys.argv[1:]:
    logs, pooled, df, kept = run_of(d)
    ind = independent(d)
    for k, l in logs.items():
        if k not in kept: continue
        n = len(l); m = sum(l) / n
        own = sum((v - m) ** 2 for v in l) / (n - 1)
        rules = {
          'current': m - t975(df) * math.sqrt(pooled / n) > 0,
          'J-1 pooled': n >= 3 and m - t975(n - 1) * math.sqrt(pooled / n) > 0,
          'own-if-wider, J-1': m - (t975(n-1) if n>=3 else t975(df)) * math.sqrt((max(own,pooled) if n>=3 else pooled) / n) > 0,
          'own-if-wider, pooled df': m - t975(df) * math.sqrt((max(own,pooled) if n>=3 else pooled) / n) > 0,
        }
        x = ind.get(k[:3])
        for r, ok in rules.items():
            res[r].append((ok, x, os.path.basename(d), k))
for r, v in res.items():
    kept = [x for ok, x, *_ in v if ok]
    dropped = [x for ok, x, *_ in v if not ok]
    bad_kept = [x for x in kept if x is not None and x < 0.97]
    print(f"{r}: kept {len(kept)} (below 0.97: {len(bad_kept)}), dropped {len(dropped)}: " + " ".join(f"{x:.3f}" if x else "-" for x in sorted(dropped, key=lambda y: y or 0)))
