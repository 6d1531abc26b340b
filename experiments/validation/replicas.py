#!/usr/bin/env python3
"""Between jobs against within a job: runs replicas.c in JOBS separate
mpirun jobs and reads what they printed.

    replicas.py run DIR JOBS NP MODES REPLICAS ROUNDS ITEM...   (mpicc, mpirun on PATH)
    replicas.py read DIR...

`run` writes DIR/job<k>.txt (MPIRUN_ARGS adds launcher options, default
`--bind-to core`; REPLICAS_EXE names a binary built elsewhere; the tuned component's dynamic rules are switched on).
`read` prints, per item and mode, on ln(speed-up) of the forced algorithm
over `default` (and of `default` over itself, the A/A arm):

- sd_round: the spread of one round's ratio around its replica's mean;
- sd_rep: the spread of the replicas' means within a job (what re-drawing
  the mode's resources inside one job shows);
- sd_job: the spread of the jobs' means (what separate jobs show);
- excess: the between-job spread that the replicas do not explain,
  sqrt(max(0, sd_job^2 - sd_rep^2 / R));
- cover1: in how many jobs the interval one replica's rounds give (t on
  the rounds, as tune validates today) holds the mean over all jobs;
- coverR: the same for the interval over the job's R replicas (t on the
  replicas' means, R-1 degrees of freedom);
- aa_false: in how many jobs the A/A arm's one-replica interval excludes 1
  (it should, at 95%, in about 5% of them).

A second table asks what a shipping rule needs: the next jobs' value is
the mean over all jobs of the `same` mode (ranks in the launcher's order,
as an application runs); per job, is the one-replica interval of `same`
(tune's validation today) or the R-replica interval of `perm` above it
(a claim the next jobs do not bear out), around it, or below it? And
`default`'s own time between jobs: the spread of ln(time) of the jobs'
means (the A/A between jobs).
"""
import math, os, statistics, subprocess, sys, tempfile
from collections import defaultdict

T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306,
        9: 2.262, 10: 2.228, 12: 2.179, 15: 2.131, 20: 2.086, 30: 2.042}


def t975(df):
    keys = [k for k in T975 if k <= df]
    return T975[max(keys)] if keys else float("inf")


def run(out, jobs, np_, rest):
    os.makedirs(out, exist_ok=True)
    exe = os.environ.get("REPLICAS_EXE")  # built elsewhere (a machine without a compiler)
    if not exe:
        exe = os.path.join(tempfile.mkdtemp(), "replicas")
        here = os.path.dirname(os.path.abspath(__file__))
        subprocess.run(["mpicc", "-O2", "-o", exe, os.path.join(here, "replicas.c")], check=True)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    placement = os.environ.get("MPIRUN_ARGS", "--bind-to core").split()
    for k in range(int(jobs)):
        text = subprocess.run(["mpirun", "-n", np_, *placement, "--mca",
                               "coll_tuned_use_dynamic_rules", "1", exe, *rest], env=env,
                              check=True, capture_output=True, text=True).stdout
        open(os.path.join(out, f"job{k}.txt"), "w").write(text)
        print(f"job {k + 1}/{jobs} done", file=sys.stderr)


def interval(values):
    n = len(values)
    mean = statistics.fmean(values)
    if n < 2:
        return mean, float("inf")
    return mean, t975(n - 1) * statistics.stdev(values) / math.sqrt(n)


def read(dirs):
    # (mode, item) -> job -> replica -> [(ln d/f, ln d/d2)]
    data = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    for d in dirs:
        for name in sorted(os.listdir(d)):
            if not name.startswith("job"):
                continue
            for line in open(os.path.join(d, name)):
                mode, coll, size, alg, rep, _, t0, t1, t2 = line.split()
                t0, t1, t2 = float(t0), float(t1), float(t2)
                data[(coll, int(size), alg, mode)][(d, name)][int(rep)].append(
                    (math.log(t0 / t2), math.log(t0 / t1)))
    print("| item | mode | jobs x reps | speed-up | sd_round | sd_rep | sd_job | excess | "
          "cover1 | coverR | A/A sd_job | aa_false |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for key in sorted(data):
        coll, size, alg, mode = key
        jobs = data[key]
        out = []
        for arm in (0, 1):
            rep_means = {j: [statistics.fmean(x[arm] for x in reps[r]) for r in sorted(reps)]
                         for j, reps in jobs.items()}
            job_means = [statistics.fmean(m) for m in rep_means.values()]
            grand = statistics.fmean(job_means)
            sd_round = math.sqrt(statistics.fmean(
                statistics.variance([x[arm] for x in reps[r]])
                for reps in jobs.values() for r in reps))
            r = min(len(m) for m in rep_means.values())
            sd_rep = (math.sqrt(statistics.fmean(statistics.variance(m) for m in rep_means.values()))
                      if r > 1 else float("nan"))
            sd_job = statistics.stdev(job_means) if len(job_means) > 1 else float("nan")
            excess = (math.sqrt(max(0.0, sd_job ** 2 - sd_rep ** 2 / r))
                      if r > 1 else float("nan"))
            cover1 = coverR = false1 = 0
            for j, reps in jobs.items():
                m, h = interval([x[arm] for x in reps[0]])
                cover1 += abs(m - grand) <= h
                false1 += abs(m) > h
                m, h = interval(rep_means[j])
                coverR += abs(m - grand) <= h
            out.append((grand, sd_round, sd_rep, sd_job, excess, cover1, coverR, false1, r))
        (g, sr, sp, sj, ex, c1, cr, _, r), aa = out
        n = len(jobs)
        print(f"| {coll} {size} B alg {alg} | {mode} | {n} x {r} | {math.exp(g):.3f} | {sr:.3f} | "
              f"{sp:.3f} | {sj:.3f} | {ex:.3f} | {c1}/{n} | {cr}/{n} | {aa[3]:.3f} | {aa[7]}/{n} |")


def claims(dirs):
    data = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    for d in dirs:
        for name in sorted(os.listdir(d)):
            if name.startswith("job"):
                for line in open(os.path.join(d, name)):
                    mode, coll, size, alg, rep, _, t0, _, t2 = line.split()
                    data[(coll, int(size), alg)][(mode, d, name)][int(rep)].append(
                        (math.log(float(t0) / float(t2)), math.log(float(t0))))
    print("\n| item | next jobs (same, mean of jobs) | default's time, sd_job | "
          "one replica (same): above / around / below | 4 replicas (perm): above / around / below |")
    print("|---|---:|---:|---|---|")
    for key in sorted(data):
        coll, size, alg = key
        jobs = data[key]
        same = {k: v for k, v in jobs.items() if k[0] == "same"}
        ref = statistics.fmean(statistics.fmean(x[0] for x in reps[0]) for reps in same.values())
        sd_default = statistics.stdev(
            statistics.fmean(x[1] for r in reps.values() for x in r) for reps in same.values())

        def tally(intervals):
            above = sum(m - h > ref for m, h in intervals)
            below = sum(m + h < ref for m, h in intervals)
            return f"{above} / {len(intervals) - above - below} / {below}"

        one = [interval([x[0] for x in reps[0]]) for reps in same.values()]
        perm = [interval([statistics.fmean(x[0] for x in reps[r]) for r in sorted(reps)])
                for k, reps in jobs.items() if k[0] == "perm"]
        print(f"| {coll} {size} B alg {alg} | {math.exp(ref):.3f} | {sd_default:.3f} | "
              f"{tally(one)} | {tally(perm)} |")


if __name__ == "__main__":
    if sys.argv[1] == "run":
        run(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])
    else:
        read(sys.argv[2:])
        claims(sys.argv[2:])
