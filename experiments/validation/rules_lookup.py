"""Per item, each variant's time against `off` (no rules file) over the
rounds of rules_lookup.sh: the geometric mean of off/variant over the
rounds with its 95% t interval (each round's jobs ran back to back, in a
rotating order), and what that is per call at off's median time (ns;
positive: the variant is slower). Below 1: the variant is slower.
With --ompi5, OUT of rules_lookup_ompi5.sh instead: per job and file, the
geometric mean and range of verify's speed-ups at 4-64 B.
Usage: python3 rules_lookup.py RAW
       python3 rules_lookup.py --ompi5 OUT"""
import collections
import math
import statistics as st
import sys

T975 = {60: 2.00, 100: 1.984, 120: 1.98}


def t_quantile(df):
    return next((v for k, v in sorted(T975.items()) if df <= k), 1.96)


if sys.argv[1] == "--ompi5":
    jobs = {}
    for line in open(sys.argv[2]):
        f = line.split()
        if line.startswith("=="):
            job = line.strip("= \n")
            jobs[job] = []
        elif len(f) > 6 and f[3] == "B" and int(f[2]) <= 64:
            jobs[job].append(float(f[6]))
    for job, v in jobs.items():
        g = math.exp(sum(map(math.log, v)) / len(v))
        print(f"{job}: {len(v)} rows, geometric mean {g:.3f}, range {min(v):.3f}-{max(v):.3f}")
    sys.exit(0)

times = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) < 6 or f[4] != "mean_us":
        continue
    r, v, coll, b, _, t = f[:6]
    times[(coll, int(b)), v][int(r)] = float(t)
items = sorted({k[0] for k in times})
variants = sorted({k[1] for k in times if k[1] != "off"})
print("| item | off, median µs | " + " | ".join(f"off/{v}" for v in variants) + " |")
print("|---" * (2 + len(variants)) + "|")
for item in items:
    off = times[item, "off"]
    cells = []
    for v in variants:
        x = times[item, v]
        logs = [math.log(off[r] / x[r]) for r in x if r in off]
        m, se = st.mean(logs), st.stdev(logs) / math.sqrt(len(logs))
        q = t_quantile(len(logs) - 1)
        ns = st.median(off.values()) * (math.exp(-m) - 1) * 1e3
        cells.append(f"{math.exp(m):.3f} ({math.exp(m - q * se):.3f}-{math.exp(m + q * se):.3f}) "
                     f"{ns:+.0f} ns")
    print(f"| {item[0]} {item[1]} B | {st.median(off.values()):.3f} | " + " | ".join(cells) + " |")
print(f"\n{len(off)} rounds")
