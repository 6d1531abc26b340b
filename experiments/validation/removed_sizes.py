#!/usr/bin/env python3
"""The sizes the last `verify --confirm` of each main-job run set back to
`default`: tune's speed-up, each confirmation's, the last job's interval and
the figure across the jobs (as reported: the size's own spread where wider
than the pooled one, which decides). Marks those faster in every job with
the reported interval across the jobs above 1.05's floor of 1.

Usage (in experiments/results/validation/main-job):
    python3 ../../../validation/removed_sizes.py 2026-12-07-[ghijkl]/mc*
"""
import csv
import os
import sys


def main():
    for d in sys.argv[1:]:
        f = os.path.join(d, "confirmed", "confirmations.csv")
        if not os.path.exists(f):
            continue
        with open(os.path.join(d, "validation.csv")) as v:
            tune = {(r["collective"], r["msg_bytes"]): r for r in csv.DictReader(v) if r["kept"] == "true"}
        jobs = {}
        with open(f) as c:
            for r in csv.DictReader(c):
                jobs.setdefault((r["collective"], r["msg_bytes"]), []).append(r)
        for k, js in sorted(jobs.items()):
            js.sort(key=lambda r: int(r["job"]))
            last = js[-1]
            if last["kept"] != "false":
                continue
            each = ([float(tune[k]["speedup"])] if k in tune else []) + [float(r["speedup"]) for r in js]
            across = float(last["across"]) if last["across"] else None
            low = float(last["across_low"]) if last["across_low"] else None
            faster = all(s >= 1.0 for s in each) and across and across >= 1.05 and low and low > 1
            print(
                f"{os.path.basename(d)} {k[0]} {k[1]} B: jobs {' '.join(f'{s:.2f}' for s in each)}; "
                f"last {float(last['speedup']):.2f} ({float(last['low']):.2f}-{float(last['high']):.2f}); "
                f"across {across:.2f} ({low:.2f}-{float(last['across_high']):.2f})"
                + ("  faster in every job" if faster else "")
            )


if __name__ == "__main__":
    main()
