#!/usr/bin/env python3
"""Independent check of tune's validated switches: for each communicator
size with kept switches, the rules file on and off in alternating separate
mpirun jobs of rules_timer.c (no collsel code in the loop), at every
size where the shipped rules switch away from default (elsewhere both jobs
run the same call). Prints each kept switch's independent speed-up
(geometric mean over the job pairs, Student t interval on their log
ratios) next to the interval tune reported, and whether it lies inside,
above or below it; with --confirmed also next to the interval across
the jobs that timed it, tune's and every confirmation's (the report's
headline after `verify --confirm`, read from confirmation.csv's `across`
columns; directories written before those columns existed: the geometric
mean of tune's job and the confirmation's, Student t on the spread between
them pooled over every size both timed), and beside the range one more
job falls in (confirmation.csv's `next_low`, `next_high`, where written).

Usage: independent.py DIR [PAIRS] [--confirmed] [--plain]   (mpicc, mpirun on PATH; PAIRS 20:
six pairs could not tell a 6% switch from 1 where job speeds are bimodal, validation.md)
The loop times as an application calls (rules_timer's APP=1, the protocol of
../shared/tools/coll_sweep.c: each call sends values written just before it
and its result is read after it); --plain: sends from memory never written
(the zero page where the buffer is fresh) and never reads the result, as
the runs before 2026-11-29 did (validation.md says what that favours).
--confirmed: the rules `verify --confirm DIR` wrote (DIR/confirmed/rules)
and the switches it kept, with the confirmation's interval beside tune's.
MPIRUN_ARGS (default: --bind-to core) places the ranks as tune's job did;
RULES_TIMER names a rules_timer binary built elsewhere; RAW=FILE keeps
every job's times.
"""
import csv, math, os, re, subprocess, sys, tempfile

from replicas import t975


UNITS = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}


def switched(rules, row):
    """Whether the rules file collsel wrote still switches away from
    default at the row's size: a rule is set back (algorithm 0) where any
    size it covers did not hold. Reads the comments collsel writes: the
    section's "collective id: NAME" and each rule's "from SIZE"."""
    section, procs, algorithm = None, None, None
    lines = open(rules).read().splitlines()
    for k, line in enumerate(lines):
        m = re.search(r"# collective id: (\w+)", line)
        if m:
            section = m.group(1)
            continue
        if section != row["collective"]:
            continue
        if line.strip().endswith("# comm size") or "# comm size " in line:
            procs = int(line.split()[0])
            continue
        m = re.match(r"\s*\d+ (\d+) \d+ \d+ # from (\d+) (\w+)", line)
        if m and procs == int(row["procs"]):
            if int(m.group(2)) * UNITS[m.group(3)] <= int(row["msg_bytes"]):
                algorithm = int(m.group(1))
    return algorithm not in (None, 0)


def main():
    args = [a for a in sys.argv[1:] if a not in ("--confirmed", "--plain")]
    confirmed = "--confirmed" in sys.argv
    app = "0" if "--plain" in sys.argv else "1"
    out_dir = args[0]
    pairs = int(args[1]) if len(args) > 1 else 20
    rows = list(csv.DictReader(open(os.path.join(out_dir, "validation.csv"))))
    kept = [r for r in rows if r["kept"] == "true"]
    key = lambda r: (r["collective"], r["procs"], r["msg_bytes"])
    # A rules file's segment size 0 reads back as none; tune wrote seg=0.
    decision = lambda r: r["decision"].replace(" seg=0", "")
    confirmation = {}
    if confirmed:
        rules = os.path.abspath(os.path.join(out_dir, "confirmed", "rules"))
        confirmation = {key(r): r for r in csv.DictReader(
            open(os.path.join(out_dir, "confirmed", "confirmation.csv")))}
        kept = [r for r in kept if confirmation.get(key(r), {}).get("kept") == "true"
                and switched(rules, r)]
    else:
        rules = os.path.abspath(os.path.join(out_dir, "rules"))
    exe = os.environ.get("RULES_TIMER")
    if not exe:
        exe = os.path.join(tempfile.mkdtemp(), "rules_timer")
        here = os.path.dirname(os.path.abspath(__file__))
        subprocess.run(["mpicc", "-O2", "-o", exe, os.path.join(here, "rules_timer.c")],
                       check=True)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               APP=app)
    placement = os.environ.get("MPIRUN_ARGS", "--bind-to core").split()
    # RAW=FILE: every job's time per item, "pair setting procs collective
    # bytes mean_us", to see which side moves between jobs.
    raw = open(os.environ["RAW"], "w") if os.environ.get("RAW") else None
    logs = {}  # (collective, procs, bytes) -> [ln(off/on)] per job pair
    for procs in sorted({int(r["procs"]) for r in kept}):
        items = [f"{r['collective']}:{r['msg_bytes']}" for r in kept if int(r["procs"]) == procs]
        for k in range(pairs):
            times = {}
            for setting in (["on", "off"] if k % 2 == 0 else ["off", "on"]):
                mca = (["--mca", "coll_tuned_use_dynamic_rules", "1", "--mca",
                        "coll_tuned_dynamic_rules_filename", rules] if setting == "on" else [])
                out = subprocess.run(["mpirun", "-n", str(procs), *placement, "-x", "APP", *mca, exe,
                                      *items], env=env, check=True, capture_output=True,
                                     text=True).stdout
                for line in out.splitlines():
                    name, size, _, t = line.split()
                    times[(setting, name, int(size))] = float(t)
                    if raw:
                        raw.write(f"{k} {setting} {procs} {name} {size} {t}\n")
            for item in items:
                name, size = item.split(":")
                logs.setdefault((name, procs, int(size)), []).append(
                    math.log(times[("off", name, int(size))] / times[("on", name, int(size))]))
    # Across the jobs: the product's own figure where confirmation.csv has
    # it; else every size both jobs timed (same decision) pools the spread
    # between the two.
    written = {k: tuple(float(c[f]) for f in ("across", "across_low", "across_high"))
               for k, c in confirmation.items() if c.get("across")}
    # The range one more job falls in, where confirmation.csv gives it.
    next_job = {k: (float(c["next_low"]), float(c["next_high"]))
                for k, c in confirmation.items() if c.get("next_low")}
    both = {key(r): (float(r["speedup"]), float(confirmation[key(r)]["speedup"]))
            for r in rows if key(r) in confirmation
            and decision(confirmation[key(r)]) == decision(r)
            and r["speedup"] and confirmation[key(r)]["speedup"]}
    pooled = (sum(math.log(a / b) ** 2 / 2 for a, b in both.values()) / len(both)
              if both else None)

    def across(k):
        if k in written:
            return written[k]
        if k not in both or pooled is None:
            return None
        a, b = both[k]
        mean = (math.log(a) + math.log(b)) / 2
        half = t975(len(both)) * math.sqrt(pooled / 2)
        return math.exp(mean), math.exp(mean - half), math.exp(mean + half)

    print(f"| collective | ranks | size | independent, {pairs} job pairs (95%) | "
          "tune's validation | where | confirmation | across the jobs | where | a next job | "
          "where |")
    print("|---|---:|---:|---|---|---|---|---|---|---|---|")
    tally = {"inside": 0, "above": 0, "below": 0}
    tally_both = {"inside": 0, "above": 0, "below": 0}
    tally_next = {"inside": 0, "above": 0, "below": 0}
    worst = float("inf")
    for (collective, procs, size), v in sorted(logs.items()):
        mean = sum(v) / len(v)
        sd = math.sqrt(sum((x - mean) ** 2 for x in v) / (len(v) - 1)) if len(v) > 1 else 0
        half = t975(len(v) - 1) * sd / math.sqrt(len(v))
        row = next(r for r in kept if (r["collective"], int(r["procs"]), int(r["msg_bytes"]))
                   == (collective, procs, size))
        low, high = float(row["low"]), float(row["high"])

        def where_in(lo, hi, counts):
            w = "above" if math.exp(mean) > hi else "below" if math.exp(mean) < lo else "inside"
            counts[w] += 1
            return w

        where = where_in(low, high, tally)
        worst = min(worst, math.exp(mean))
        c = confirmation.get(key(row))
        confirmed_at = (f"{float(c['speedup']):.3f} ({float(c['low']):.3f}-{float(c['high']):.3f})"
                        if c else "-")
        a = across(key(row))
        where_both = where_in(a[1], a[2], tally_both) if a else "-"
        across_at = f"{a[0]:.3f} ({a[1]:.3f}-{a[2]:.3f})" if a else "-"
        n = next_job.get(key(row))
        where_next = where_in(n[0], n[1], tally_next) if n else "-"
        next_at = f"{n[0]:.3f}-{n[1]:.3f}" if n else "-"
        print(f"| {collective} | {procs} | {size} | {math.exp(mean):.3f} "
              f"({math.exp(mean - half):.3f}-{math.exp(mean + half):.3f}) | "
              f"{float(row['speedup']):.3f} ({low:.3f}-{high:.3f}) | {where} | {confirmed_at} | "
              f"{across_at} | {where_both} | {next_at} | {where_next} |")
    print(f"\nkept switches: {len(logs)}; independent ratio inside tune's interval "
          f"{tally['inside']}, above {tally['above']}, below {tally['below']}; "
          f"lowest {worst:.3f}")
    if confirmed:
        print(f"inside the interval across the jobs {tally_both['inside']}, above "
              f"{tally_both['above']}, below {tally_both['below']}; inside a next job's range "
              f"{tally_next['inside']}, above {tally_next['above']}, below {tally_next['below']}")
    # Each pair's ratio in turn: a window of jobs that met one state
    # shows as a run of like figures.
    for (collective, procs, size), v in sorted(logs.items()):
        print(f"pairs, {collective} {procs} {size}: " +
              " ".join(f"{math.exp(x):.2f}" for x in v))


if __name__ == "__main__":
    main()
