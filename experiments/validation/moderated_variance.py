#!/usr/bin/env python3
"""Tried for verify --confirm's decision, not adopted: each size's spread
between jobs moderated towards the others' (Smyth 2004, "Linear models and
empirical Bayes methods for assessing differential expression": a prior
variance s0^2 with d0 degrees of freedom fitted to the sizes' variances,
each size's s~^2 = (d0 s0^2 + d s^2) / (d0 + d) on d0 + d degrees of
freedom) instead of the spread pooled over every size. Prints, per run,
each size that holds either way, the sizes whose decision would change,
and where the kept switches' independent figures fall.

Usage: moderated_variance.py RUN_DIR...   (as interval_variants.py)
"""
import collections, csv, math, os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from replicas import t975
from interval_variants import jobs_per_size, independent, key

def digamma(x):
    r = 0.0
    while x < 6: r -= 1 / x; x += 1
    f = 1 / (x * x)
    return r + math.log(x) - 0.5 / x - f * (1/12 - f * (1/120 - f * (1/252 - f * (1/240 - f / 132))))

def trigamma(x):
    r = 0.0
    while x < 6: r += 1 / (x * x); x += 1
    f = 1 / (x * x)
    return r + 1 / x + f / 2 + f / x * (1/6 - f * (1/30 - f * (1/42 - f / 30)))

def trigamma_inverse(y):
    """x with trigamma(x) = y, by Newton's method (derivative by central
    difference)."""
    if y > 1e7: return 1 / math.sqrt(y)
    if y < 1e-6: return 1 / y
    x = 0.5 + 1 / y
    for _ in range(50):
        tri = trigamma(x)
        h = 1e-5 * x
        d = (trigamma(x + h) - trigamma(x - h)) / (2 * h)
        step = (tri - y) / d
        x -= step
        if x <= 0: x = 1e-8
        if abs(step) < 1e-8 * x: break
    return x

def prior(vars_dfs):
    """Smyth (2004): d0, s0^2 from the sizes' variances."""
    z = [math.log(s) - digamma(d / 2) + math.log(d / 2) for s, d in vars_dfs if s > 0]
    n = len(z)
    if n < 3: return None
    e = sum(z) / n
    v = sum((x - e) ** 2 for x in z) / (n - 1) - sum(trigamma(d / 2) for s, d in vars_dfs if s > 0) / n
    if v <= 0: return (math.inf, math.exp(e))
    d0 = 2 * trigamma_inverse(v)
    s0 = math.exp(e + digamma(d0 / 2) - math.log(d0 / 2))
    return d0, s0

tally = collections.Counter(); changes = []
for d in sys.argv[1:]:
    run = os.path.basename(os.path.normpath(d))
    xs = jobs_per_size(d)
    logs = {k: [math.log(v) for v in x] for k, x in xs.items()}
    vd = []
    for l in logs.values():
        m = sum(l) / len(l); vd.append((sum((v - m) ** 2 for v in l) / (len(l) - 1), len(l) - 1))
    ss = sum(s * df for s, df in vd); df = sum(x for _, x in vd); pooled = ss / df
    pr = prior(vd)
    kept = {key(r) for r in csv.DictReader(open(f"{d}/confirmed/confirmation.csv")) if r["kept"] == "true"}
    ind = independent(d)
    print(run, "pooled sd %.3f df %d" % (math.sqrt(pooled), df), "prior d0 %.2f s0 %.3f" % (pr[0], math.sqrt(pr[1])) if pr else "no prior")
    for k, l in sorted(logs.items()):
        n = len(l); m = sum(l) / n
        own = sum((v - m) ** 2 for v in l) / (n - 1)
        if pr and math.isfinite(pr[0]):
            d0, s0 = pr; var = (d0 * s0 + (n - 1) * own) / (d0 + n - 1); dfm = d0 + n - 1
        else:
            var, dfm = (pr[1] if pr else pooled), 10**6
        t = t975(int(round(min(dfm, 200))))
        low = math.exp(m - t * math.sqrt(var / n)); high = math.exp(m + t * math.sqrt(var / n))
        held = low > 1 and math.exp(m) >= 1.05
        was = k in kept
        nxt = t * math.sqrt(var * (1 + 1 / n))
        if held != was: changes.append((run, k[0], k[2], [round(math.exp(v), 2) for v in l], was, held, ind.get(k[:3])))
        if held and k[:3] in ind:
            x = ind[k[:3]]
            for label, lo, hi in (("mean", low, high), ("next", math.exp(m - nxt), math.exp(m + nxt))):
                w = "above" if x > hi else "below" if x < lo else "inside"
                tally[(label, w)] += 1
                if w != "inside": print("  ", label, w, k[0], k[2], f"{x:.3f} vs {lo:.3f}-{hi:.3f}")
        if held or was:
            print(f"   {k[0]:10s} {k[2]:>8s} {k[3][:20]:20s} {[round(math.exp(v),2) for v in l]} mod {math.exp(m):.2f} ({low:.2f}-{high:.2f}) df {dfm:.1f} held {held} was {was}")
print(sorted(tally.items()))
print("changes:")
for c in changes: print(" ", c)
