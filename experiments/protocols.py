#!/usr/bin/env python3
"""Writes the train/test parts of the two protocols of ../shared/tools/selection_table.py:
  within - every third distinct procs value (from the 2nd) held out for test;
  extrap - train on procs <= 1/4 of the largest, test on procs >= 1/2 of it.
Usage: protocols.py OUTDIR FILE.csv...  -> OUTDIR/<name>.<protocol>.{train,test}.csv
(files with fewer than 4 distinct procs values are skipped)."""
import csv, os, sys

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
for path in sys.argv[2:]:
    rows = list(csv.DictReader(open(path)))
    procs = sorted({int(r["procs"]) for r in rows})
    if len(procs) < 4:
        continue
    name = os.path.basename(path)[:-4]
    for proto in ("within", "extrap"):
        if proto == "within":
            test = set(procs[1::3])
            train = set(procs) - test
        else:
            train = {p for p in procs if p <= procs[-1] // 4}
            test = {p for p in procs if p >= procs[-1] // 2}
        for part, keep in (("train", train), ("test", test)):
            with open(f"{out}/{name}.{proto}.{part}.csv", "w", newline="") as f:
                w = csv.DictWriter(f, rows[0].keys())
                w.writeheader()
                for r in rows:
                    if int(r["procs"]) in keep:
                        w.writerow(r)
