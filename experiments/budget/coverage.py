#!/usr/bin/env python3
"""What a tune's data.csv measured, per collective and communicator size:
rows, message sizes, and distinct candidates (algorithm, segment size,
fan-out, implementation) per size, least and most.

usage: python3 experiments/budget/coverage.py DIR/data.csv [--procs N]
"""
import csv
import sys
from collections import defaultdict


def main():
    path = sys.argv[1]
    only = int(sys.argv[sys.argv.index("--procs") + 1]) if "--procs" in sys.argv else None
    per = defaultdict(lambda: defaultdict(set))
    rows = defaultdict(int)
    for r in csv.DictReader(open(path)):
        key = (r.get("collective") or "bcast", int(r["procs"]))
        if only is not None and key[1] != only:
            continue
        candidate = (r["algorithm"], r["segsize_bytes"], r["fanout"], r["impl"])
        per[key][int(r["msg_bytes"])].add(candidate)
        rows[key] += 1
    print("| collective | ranks | rows | sizes | candidates per size |")
    print("|---|---:|---:|---:|---|")
    for (c, p) in sorted(per, key=lambda k: (k[0], -k[1])):
        counts = [len(s) for s in per[(c, p)].values()]
        lo, hi = min(counts), max(counts)
        spread = f"{lo}" if lo == hi else f"{lo}-{hi}"
        print(f"| {c} | {p} | {rows[(c, p)]} | {len(counts)} | {spread} |")


if __name__ == "__main__":
    main()
