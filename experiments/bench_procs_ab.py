#!/usr/bin/env python3
"""Analysis of experiments/bench_procs_ab.sh: does a communicator size measured
as a sub-communicator of a larger job (bench --procs) time like a separate job
of that size?  Reads DIR/sep<r>.csv and DIR/one<r>.csv (r = 1..R, one round
each), pairs the two methods point by point (algorithm, segment size, impl,
message size) within a round and prints:
  - the geometric-mean ratio one-job / separate over all points and rounds,
    with a 95% interval from resampling whole rounds (a round's runs share
    the VM's state of that minute, so rounds are the independent units);
  - the same for separate / separate of the next round and one-job /
    one-job of the next round: what identical runs differ by (the noise);
  - per message size, the median over rounds of the paired ratio.
Usage: python3 experiments/bench_procs_ab.py DIR"""
import collections, csv, glob, math, os, random, statistics, sys


def load(path):
    out = {}
    for r in csv.DictReader(open(path)):
        key = (r["algorithm"], r.get("segsize_bytes", ""), r.get("impl", ""), int(r["msg_bytes"]))
        assert r["procs"] == os.environ.get("SIZE", "2"), f"{path}: procs {r['procs']}"
        out[key] = float(r["time_us"])
    return out


def paired(a, b):
    """ln(a/b) per common point."""
    return {k: math.log(a[k] / b[k]) for k in a.keys() & b.keys()}


def summary(rounds, seed=1):
    """Geometric mean of the ratio and a 95% interval resampling rounds."""
    flat = [v for r in rounds for v in r.values()]
    rng = random.Random(seed)
    means = []
    for _ in range(2000):
        pick = [rounds[rng.randrange(len(rounds))] for _ in rounds]
        vals = [v for r in pick for v in r.values()]
        means.append(sum(vals) / len(vals))
    means.sort()
    m = sum(flat) / len(flat)
    return f"{math.exp(m):.3f} (95% {math.exp(means[50]):.3f}-{math.exp(means[1949]):.3f}; points {math.exp(min(flat)):.2f}-{math.exp(max(flat)):.2f})"


def main():
    d = sys.argv[1]
    n = len(glob.glob(os.path.join(d, "sep*.csv")))
    sep = [load(os.path.join(d, f"sep{r}.csv")) for r in range(1, n + 1)]
    one = [load(os.path.join(d, f"one{r}.csv")) for r in range(1, n + 1)]
    method = [paired(o, s) for o, s in zip(one, sep)]
    print(f"{n} rounds, {len(method[0])} points each (ratio of time_us: geometric mean, 95% interval over rounds, range over points)\n")
    print("| comparison | ratio |")
    print("|---|---|")
    size = os.environ.get("SIZE", "2")
    print(f"| one job (--procs {size} of a larger job) / separate {size}-rank job, same round | {summary(method)} |")
    print(f"| separate / separate, next round (noise) | {summary([paired(sep[i + 1], sep[i]) for i in range(n - 1)])} |")
    print(f"| one job / one job, next round (noise) | {summary([paired(one[i + 1], one[i]) for i in range(n - 1)])} |")
    by_size = collections.defaultdict(list)
    for r in method:
        for k, v in r.items():
            by_size[k[3]].append(v)
    print("\n| message size | median one/separate | interquartile range |")
    print("|---:|---:|---:|")
    for size in sorted(by_size):
        q = statistics.quantiles(by_size[size], n=4)
        print(f"| {size} | {math.exp(statistics.median(by_size[size])):.3f} | {math.exp(q[0]):.3f}-{math.exp(q[2]):.3f} |")


if __name__ == "__main__":
    main()
