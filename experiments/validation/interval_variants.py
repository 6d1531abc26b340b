#!/usr/bin/env python3
"""Where each kept switch's independent figure (independent.py's geometric
mean over the plain-loop job pairs, from a run's mcN.indep.md) falls
against four ways of stating the interval across the jobs, recomputed from
the run's own files (validation.csv: tune's job; confirmed/
confirmations.csv: each confirmation's):

- mean, pooled df: the mean's interval, the spread between jobs pooled over
  every size timed in two or more jobs, Student's t on the pooled degrees
  of freedom (a size's own spread where three or more jobs timed it and
  that is wider, then t on its own J-1) — what verify --confirm reported
  before next_low/next_high;
- next, pooled df: the same spread, the range one more job falls in;
- mean, J-1 / next, J-1: the same, with t on the jobs' degrees of freedom
  wherever three or more jobs timed the size — what it reports now.

Also which switches a decision on t(J-1) would have dropped (the decision
kept in verify: the pooled spread with its degrees of freedom).

Usage: interval_variants.py RUN_DIR...   (each holding mcN.indep.md,
validation.csv and confirmed/)
"""
import collections, csv, math, os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from replicas import t975

NEAR = 0.05


def key(r):
    return (r["collective"], r["procs"], r["msg_bytes"], r["decision"].replace(" seg=0", ""))


def jobs_per_size(d):
    """Each size's speed-up in every job that timed it, tune's first."""
    tune = {key(r): float(r["speedup"]) for r in csv.DictReader(open(f"{d}/validation.csv"))
            if r["speedup"]}
    later = collections.defaultdict(dict)
    for r in csv.DictReader(open(f"{d}/confirmed/confirmations.csv")):
        if r["speedup"]:
            later[key(r)][int(r["job"])] = float(r["speedup"])
    last = {key(r) for r in csv.DictReader(open(f"{d}/confirmed/confirmation.csv"))
            if r["speedup"]}
    return {k: [tune[k]] + [later[k][j] for j in sorted(later[k])]
            for k in last if k in tune and k in later}


def independent(d):
    """(collective, procs, size) -> the independent geometric mean."""
    name = os.path.basename(os.path.normpath(d))
    out = {}
    for line in open(f"{d}/{name}.indep.md"):
        c = [x.strip() for x in line.split("|")]
        if len(c) < 6 or c[1] in ("", "collective") or c[1].startswith("-"):
            continue
        out[(c[1], c[2], c[3])] = float(c[4].split()[0])
    return out


def run_of(d):
    """A run's ln speed-ups per size over its jobs, the spread between
    jobs pooled over every size with its degrees of freedom, and the
    sizes its last confirmation kept."""
    logs = {k: [math.log(v) for v in x] for k, x in jobs_per_size(d).items()}
    ss = sum(sum((v - sum(l) / len(l)) ** 2 for v in l) for l in logs.values())
    df = sum(len(l) - 1 for l in logs.values())
    kept = {key(r) for r in csv.DictReader(open(f"{d}/confirmed/confirmation.csv"))
            if r["kept"] == "true"}
    return logs, ss / df, df, kept


def main():
    tally = collections.Counter()
    dropped = []
    below = []
    for d in sys.argv[1:]:
        logs, pooled, df, kept = run_of(d)
        ind = independent(d)
        for k, l in sorted(logs.items()):
            n = len(l)
            m = sum(l) / n
            own = sum((v - m) ** 2 for v in l) / (n - 1)
            wider = n >= 3 and own > pooled
            between = own if wider else pooled
            if k in kept and (n < 3 or m - t975(n - 1) * math.sqrt(pooled / n) <= 0
                              or math.exp(m) < 1 + NEAR):
                dropped.append((os.path.basename(os.path.normpath(d)), k, ind.get(k[:3])))
            if k not in kept or k[:3] not in ind:
                continue
            x = math.log(ind[k[:3]])
            t_cur = t975(n - 1) if wider else t975(df)
            t_jobs = t975(n - 1) if n >= 3 else t975(df)
            for label, t, var in (("mean, pooled df", t_cur, between / n),
                                  ("next, pooled df", t_cur, between * (1 + 1 / n)),
                                  ("mean, J-1", t_jobs, between / n),
                                  ("next, J-1", t_jobs, between * (1 + 1 / n))):
                half = t * math.sqrt(var)
                where = "above" if x > m + half else "below" if x < m - half else "inside"
                tally[(label, where)] += 1
                if where == "below":
                    below.append((label, os.path.basename(os.path.normpath(d)), k,
                                  math.exp(x), math.exp(m - half)))
    print("| interval | inside | above | below |\n|---|---:|---:|---:|")
    for label in ("mean, pooled df", "next, pooled df", "mean, J-1", "next, J-1"):
        print(f"| {label} | {tally[(label, 'inside')]} | {tally[(label, 'above')]} | "
              f"{tally[(label, 'below')]} |")
    print("\nbelow:")
    for label, run, k, x, low in below:
        print(f"- {label}: {run} {k[0]} {k[2]} B: {x:.3f} against {low:.3f} "
              f"({(1 - x / low) * 100:.1f}% below)")
    print("\nkept, but not on t(J-1) with the pooled spread (independent figure where timed):")
    for run, k, x in dropped:
        print(f"- {run}: {k[0]} {k[2]} B {k[3]}: " + (f"{x:.3f}" if x else "not timed"))


if __name__ == "__main__":
    main()
