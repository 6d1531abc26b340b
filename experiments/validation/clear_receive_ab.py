#!/usr/bin/env python3
"""Summarises clear_receive_ab.sh: for each switched size, the speed-up
each binary's confirmation measured (geometric mean over its jobs, Student
t interval on their logs) and the independent plain loop's (rules off over
rules on, geometric mean of the job pairs).
Usage: clear_receive_ab.py OUTDIR"""
import csv, glob, math, os, sys

import replicas


def interval(ratios):
    """Geometric mean of `ratios` and its Student t interval."""
    mean, half = replicas.interval([math.log(x) for x in ratios])
    return math.exp(mean), math.exp(mean - half), math.exp(mean + half)


def main(out):
    confirmed = {}
    for which in ("old", "new"):
        for path in sorted(glob.glob(os.path.join(out, f"{which}-*/confirmed/confirmation.csv"))):
            for row in csv.DictReader(open(path)):
                key = (row["collective"], int(row["msg_bytes"]))
                confirmed.setdefault(key, {}).setdefault(which, []).append(float(row["speedup"]))
    independent = {}
    for on in sorted(glob.glob(os.path.join(out, "on-*.txt"))):
        off = on.replace("on-", "off-")
        times = {}
        for label, path in (("on", on), ("off", off)):
            for line in open(path):
                f = line.split()
                if len(f) >= 4 and f[2] == "mean_us":
                    times.setdefault((f[0], int(f[1])), {})[label] = float(f[3])
        for key, t in times.items():
            if "on" in t and "off" in t:
                independent.setdefault(key, []).append(t["off"] / t["on"])
    print("| collective | size | old harness | new harness | independent (APP=1) |")
    print("|---|---:|---|---|---|")
    fmt = lambda r: "%.3f (%.3f-%.3f), %d jobs" % (*interval(r), len(r)) if r else "-"
    for key in sorted(set(confirmed) | set(independent)):
        c = confirmed.get(key, {})
        print(f"| {key[0]} | {key[1]} | {fmt(c.get('old'))} | {fmt(c.get('new'))} | "
              f"{fmt(independent.get(key))} |")
    for key in sorted(confirmed):
        for which in ("old", "new"):
            print(f"{which} {key[0]} {key[1]}: " +
                  " ".join("%.3f" % x for x in confirmed[key].get(which, [])))
    for key in sorted(independent):
        print(f"independent {key[0]} {key[1]}: " + " ".join("%.3f" % x for x in independent[key]))


if __name__ == "__main__":
    main(sys.argv[1])
