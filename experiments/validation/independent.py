#!/usr/bin/env python3
"""Independent check of tune's validated effect: for each tuned job size,
the rules file on and off in alternating rounds of separate mpirun runs of
rules_timer.c (no bcast-select code in the loop), at every size where the
shipped rules switch away from default (elsewhere both runs are the same
call); the effect per collective and job size is the geometric mean over
all tuned sizes, switched ones measured, the others 1, with a 95% interval
from the rounds (paired by round, t on the log ratios, pooled as in the
report). Prints it next to the effect in DIR/report.md.

Usage: independent.py DIR [ROUNDS]   (mpicc and mpirun on PATH)
MPIRUN_ARGS (default: --oversubscribe --bind-to core:overload-allowed, as
the README's main job) places the ranks as tune's job placed them: rank i
on core i mod 2, whatever the job's size.
"""
import csv, math, os, re, subprocess, sys, tempfile

def main():
    out_dir = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    rules = os.path.abspath(os.path.join(out_dir, "rules"))
    rows = list(csv.DictReader(open(os.path.join(out_dir, "validation.csv"))))
    kept = [r for r in rows if r["kept"] == "true"]
    report = open(os.path.join(out_dir, "report.md")).read()
    exe = os.path.join(tempfile.mkdtemp(), "rules_timer")
    here = os.path.dirname(os.path.abspath(__file__))
    subprocess.run(["mpicc", "-O2", "-o", exe, os.path.join(here, "rules_timer.c")], check=True)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    placement = os.environ.get("MPIRUN_ARGS",
                               "--oversubscribe --bind-to core:overload-allowed").split()
    # Per collective: the number of tuned sizes per job size, from the report.
    sizes = {}
    for part in report.split("# bcast-select tune: ")[1:]:
        collective = {"MPI_Bcast": "bcast", "MPI_Reduce": "reduce",
                      "MPI_Allreduce": "allreduce"}[part.split("\n")[0].strip()]
        for m in re.finditer(r"^\| (\d+) \| (\d+) \| \d+ \| \d+ \| ([^|]+)\|", part, re.M):
            sizes[(collective, int(m.group(1)))] = (int(m.group(2)), m.group(3).strip())
    procs_list = sorted({p for (_, p) in sizes})
    logs = {}  # (collective, procs, bytes) -> [ln(off/on)]
    for procs in procs_list:
        items = [f"{r['collective']}:{r['msg_bytes']}" for r in kept if int(r["procs"]) == procs]
        if not items:
            continue
        for k in range(rounds):
            times = {}
            for setting in (["on", "off"] if k % 2 == 0 else ["off", "on"]):
                mca = (["--mca", "coll_tuned_use_dynamic_rules", "1", "--mca",
                        "coll_tuned_dynamic_rules_filename", rules] if setting == "on" else [])
                out = subprocess.run(["mpirun", "-n", str(procs), *placement, *mca, exe,
                                      *items], env=env, check=True, capture_output=True,
                                     text=True).stdout
                for line in out.splitlines():
                    name, size, _, t = line.split()
                    times[(setting, name, int(size))] = float(t)
            for item in items:
                name, size = item.split(":")
                key = (name, procs, int(size))
                logs.setdefault(key, []).append(
                    math.log(times[("off", name, int(size))] / times[("on", name, int(size))]))
    print("| collective | ranks | size | independent speed-up (95%) | tune's validation |")
    print("|---|---:|---:|---|---|")
    for (collective, procs, size), v in sorted(logs.items()):
        mean = sum(v) / len(v)
        half = 1.96 * math.sqrt(sum((x - mean) ** 2 for x in v) / (len(v) - 1) / len(v))
        row = next(r for r in kept if (r["collective"], int(r["procs"]), int(r["msg_bytes"]))
                   == (collective, procs, size))
        print(f"| {collective} | {procs} | {size} | {math.exp(mean):.3f} "
              f"({math.exp(mean - half):.3f}-{math.exp(mean + half):.3f}) | "
              f"{float(row['speedup']):.3f} ({float(row['low']):.3f}-{float(row['high']):.3f}) |")
    print()
    print("| collective | ranks | switched sizes kept | independent effect (95%) | tune's report |")
    print("|---|---:|---:|---|---|")
    for (collective, procs), (n, reported) in sorted(sizes.items()):
        parts = [v for (c, p, _), v in logs.items() if c == collective and p == procs]
        mean = sum(sum(v) / len(v) for v in parts) / n
        # Squared standard errors of each size's mean log ratio, pooled.
        var = sum(sum((x - sum(v) / len(v)) ** 2 for x in v) / (len(v) - 1) / len(v)
                  for v in parts if len(v) > 1)
        half = 1.96 * math.sqrt(var) / n
        effect = (f"{math.exp(mean):.3f} ({math.exp(mean - half):.3f}-{math.exp(mean + half):.3f})"
                  if parts else "1 (default everywhere)")
        print(f"| {collective} | {procs} | {len(parts)} | {effect} | {reported} |")


if __name__ == "__main__":
    main()
