#!/usr/bin/env python3
"""Issue 59's within bars over random held-out procs splits (evaluate --split procs
--test-fraction 0.3, seeds 1-5), for several builds side by side: per build, how many
(file, collective, seed) cells miss auto >= default - 0.005, auto >= min(naive, best
learner) - 0.02, or at most 5% of configurations >10% slower than default, and the mean
captured share of auto. evaluate's own naive (it scores every test configuration).
Usage: seeds_bars.py NAME=BIN... -- FILE.csv...   (writes nothing; prints a summary)"""
import json, subprocess, sys, csv

args = sys.argv[1:]
cut = args.index("--")
builds = [a.split("=", 1) for a in args[:cut]]
files = args[cut + 1:]
REF = ("oracle", "default", "ompi-fixed", "analytical", "auto", "naive")
stats = {n: {"cells": 0, "miss": 0, "share": 0.0, "lost": 0, "low": 0} for n, _ in builds}
for path in files:
    colls = sorted({r.get("collective") or "bcast" for r in csv.DictReader(open(path))})
    for coll in colls:
        for seed in range(1, 6):
            got = {}
            for name, binp in builds:
                cmd = [binp, "evaluate", "--train", path, "--split", "procs", "--test-fraction", "0.3",
                       "--seed", str(seed), "--format", "json"]
                if len(colls) > 1 or coll != "bcast":
                    cmd += ["--collective", coll]
                p = subprocess.run(cmd, capture_output=True, text=True)
                if p.returncode:
                    break
                sel = {s["name"]: s for s in json.loads(p.stdout)["selectors"]}
                o = sel["oracle"]["geomean_speedup_vs_default"]
                share = lambda s: (s.get("geomean_speedup_vs_default") or float("nan")) / o
                worse = lambda s: 100 * (s.get("worse_than_default_10pct_rate") or 0)
                learners = [share(v) for k, v in sel.items() if k not in REF and v.get("geomean_speedup_vs_default")]
                a, d = share(sel["auto"]), share(sel["default"])
                floor = min([share(sel["naive"])] + ([max(learners)] if learners else [])) - 0.02
                got[name] = (a, worse(sel["auto"]) > 5.0 + 1e-9, a < d - 0.005, a < floor)
            if len(got) < len(builds):
                continue
            for name, (a, lost, below, low) in got.items():
                s = stats[name]
                s["cells"] += 1
                s["share"] += a
                s["lost"] += lost
                s["low"] += below or low
                s["miss"] += lost or below or low
            print(path.split("/")[-1], coll, seed, " ".join(f"{n}:{v[0]:.3f}{'L' if v[1] else ''}{'<' if v[2] or v[3] else ''}" for n, v in got.items()), flush=True)
for name, s in stats.items():
    print(f"{name}: {s['miss']} of {s['cells']} cells miss a bar ({s['lost']} >5% of configurations >10% slower, "
          f"{s['low']} below default or naive/best learner); mean captured share {s['share'] / max(s['cells'], 1):.4f}")
