#!/usr/bin/env python3
"""The bars of issue 59 ("auto that never loses to the simple choices") checked on a
selection table (the markdown ../shared/tools/selection_table.py prints).
within: auto >= default - 0.005, auto >= min(naive, best learner) - 0.02, at most 5% of
configurations >10% slower than default; extrap: auto >= default - 0.005, at most 5%;
MPICH (local-2core-mpich.csv) within: auto >= 0.8 on bcast, reduce and allreduce.
The extrapolation bar on the one-job-size local files (half of naive's gain) is printed
as a figure, not judged here. Usage: bars.py TABLE.md  -> one line per row that misses."""
import re, sys

def cell(s):
    m = re.search(r"([0-9.]+) / ([0-9]+)%", s)
    return (float(m.group(1)), int(m.group(2))) if m else None

misses = rows = 0
for line in open(sys.argv[1]):
    f = [c.strip() for c in line.strip().strip("|").split("|")]
    if len(f) != 7 or f[1] not in ("within", "extrap") or cell(f[6]) is None:
        continue
    rows += 1
    name, proto = f[0], f[1]
    d, n, b, a = cell(f[2]), cell(f[3]), cell(f[5]), cell(f[6])
    why = []
    if a[0] < d[0] - 0.005:
        why.append(f"auto {a[0]:.3f} < default {d[0]:.3f} - 0.005")
    if a[1] > 5:
        why.append(f"{a[1]}% >10% slower")
    if proto == "within":
        floor = min(x[0] for x in (n, b) if x) - 0.02
        if a[0] < floor:
            why.append(f"auto {a[0]:.3f} < min(naive, best learner) - 0.02 = {floor:.3f}")
        if "mpich" in name and any(c in name for c in ("[bcast]", "[reduce]", "[allreduce]")) and a[0] < 0.8:
            why.append(f"MPICH auto {a[0]:.3f} < 0.8")
    if proto == "extrap" and n and n[0] > d[0]:
        half = d[0] + (n[0] - d[0]) / 2
        if a[0] < half:
            why.append(f"(naive gains: half of it needs {half:.3f})")
    if why:
        misses += 1
        print(f"{name} {proto}: " + "; ".join(why))
print(f"{misses} of {rows} rows miss a bar (or show naive's extrapolation gain)")
