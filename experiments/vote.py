#!/usr/bin/env python3
"""Dry run of vote rules for `auto` (tried 2026-11-25, not kept; see extrapolation.md).

For every train/test part that experiments/protocols.py writes, runs
`evaluate --format csv` and recomputes, from each selector's pick per test
configuration (analytical and the seven learners, each under its own
cross-validated policy), what these rules would have captured:
  auto      - the shipped rule (the binary's own auto);
  majority  - the candidate most selectors pick if more than half pick it
              and it is not default, else default;
  veto 1/2  - auto's pick, unless at least half of the selectors keep default;
  veto 2/3  - auto's pick, unless more than two thirds keep default.
Cells: captured share of the oracle's geometric-mean speed-up over default /
share of test configurations more than 10% slower than default.
Usage: python3 experiments/protocols.py /tmp/parts data/*.csv ../shared/data/*.csv
       python3 experiments/vote.py target/release/collsel /tmp/parts"""
import collections, csv, glob, math, os, subprocess, sys

SELECTORS = ["analytical", "knn", "gbm", "gam", "linear", "hybrid-knn", "hybrid-gbm", "hybrid-gam"]


def gm(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs))


def rules(sel):
    """Speed-up over default of each rule at one configuration."""
    picks, times = collections.Counter(), {}
    for name in SELECTORS:
        r = sel.get(name)
        if r and r["measured"] == "true":
            c = (r["algorithm"], r["segsize_bytes"], r["fanout"], r["impl"])
            picks[c] += 1
            times[c] = float(r["time_us"])
    n = sum(picks.values())
    t_default = float(sel["oracle"]["t_default_us"])
    auto = sel["auto"]
    auto_up = float(auto["speedup_vs_default"]) if auto["measured"] == "true" else 1.0
    switched = sum(k for c, k in picks.items() if c[0] != "default")
    top, k = picks.most_common(1)[0] if picks else (None, 0)
    return {
        "auto": auto_up,
        "majority": t_default / times[top] if top and top[0] != "default" and k > n / 2 else 1.0,
        "veto 1/2": auto_up if switched > n / 2 else 1.0,
        "veto 2/3": auto_up if switched >= n / 3 else 1.0,
    }


def main():
    binp, parts = sys.argv[1], sys.argv[2]
    names = ["auto", "majority", "veto 1/2", "veto 2/3"]
    print("| split | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for train in sorted(glob.glob(f"{parts}/*.train.csv")):
        test = train.replace(".train.", ".test.")
        out = subprocess.run([binp, "evaluate", "--train", train, "--test", test, "--format", "csv"],
                             capture_output=True, text=True, check=True).stdout
        by = collections.defaultdict(dict)
        for r in csv.DictReader(out.splitlines()):
            by[(r["procs"], r["nodes"], r["mapping"], r["msg_bytes"], r["imbalance"])][r["selector"]] = r
        oracle, got = [], collections.defaultdict(list)
        for sel in by.values():
            if not sel["oracle"]["speedup_vs_default"]:
                continue
            oracle.append(float(sel["oracle"]["speedup_vs_default"]))
            for name, up in rules(sel).items():
                got[name].append(up)
        cells = [f"{gm(got[x]) / gm(oracle):.3f} / {100 * sum(u < 1 / 1.1 for u in got[x]) / len(got[x]):.0f}%"
                 for x in names]
        print(f"| {os.path.basename(train)[:-10]} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
