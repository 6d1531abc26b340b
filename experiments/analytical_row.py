#!/usr/bin/env python3
"""One markdown row of experiments/analytical.sh from an `evaluate --format json`
report on stdin. Usage: analytical_row.py NAME.PROTOCOL [BEFORE_ACCURACY]"""
import json, sys

r = json.load(sys.stdin)
s = {x["name"]: x for x in r["selectors"]}
oracle = s["oracle"]["geomean_speedup_vs_default"]


def cap(name):
    return s[name]["geomean_speedup_vs_default"] / oracle


def acc(p):
    return "-" if not p else "%.3f" % p["accuracy"]


file, proto = sys.argv[1].rsplit(".", 1)
before = sys.argv[2] if len(sys.argv) > 2 and sys.argv[2] else "-"
a = s["analytical"]
rank = r["analytical_ranking"]
plain = max((n for n in s if n in ("knn", "gbm", "gam", "linear")), key=cap)
hybrid = max((n for n in s if n.startswith("hybrid-")), key=cap)
print(
    "| %s | %s | %.3f | %.3f | %.3f | %.0f%% | %s (%s) | %s | %s %.3f | %s %.3f |"
    % (file, proto, cap("default"), cap("analytical"), a["geomean_speedup_vs_default"],
       100 * a["worse_than_default_10pct_rate"], acc(rank["forced"]), before,
       acc(rank["all"]), plain, cap(plain), hybrid, cap(hybrid))
)
