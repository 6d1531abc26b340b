#!/usr/bin/env python3
"""Replay of `collsel plan` on measured data (no MPI needed).

For each file with at least 8 distinct procs values, the held-out-procs split of
../shared/tools/selection_table.py ("within": every third procs value, from the
2nd, is the test part). The training part is the grid. A campaign starts with
10% of the grid's configurations measured (all their candidates, chosen at
random) plus every `default` row of the grid (cheap, and the reference every
decision is scored against); it then grows to 20%, 30% and 50% of the
configurations' non-default points either by `plan` (rounds of 5 points of the
percentage up to 30%, then 10) or by random configurations. At each step
`evaluate --train <measured so far> --test <test part>` scores `auto`; the 100%
row trains on the whole training part (today's figure).

Cells: auto's captured share (geometric-mean speed-up over default / the
oracle's), mean over seeds; the last column is the 30% plan cell minus the
100% one in points, from the unrounded figures.

Usage: plan_replay.py BIN OUTDIR SEEDS FILE.csv...
(PLAN_ARGS in the environment: extra `plan` arguments, for variants.)
"""
import csv, json, os, random, subprocess, sys

STEPS = [15, 20, 25, 30, 40, 50]
REPORT = [20, 30, 50]


def key(r):
    return tuple(r.get(c, "") for c in ("procs", "nodes", "ppn", "mapping", "msg_bytes", "imbalance", "arrival_pattern"))


def write(path, header, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, header)
        w.writeheader()
        w.writerows(rows)


def captured(binp, train, test):
    p = subprocess.run([binp, "evaluate", "--train", train, "--test", test, "--format", "json"],
                       capture_output=True, text=True)
    if p.returncode:
        raise SystemExit(f"evaluate {train}: {p.stderr}")
    sel = {s["name"]: s for s in json.loads(p.stdout)["selectors"]}
    return sel["auto"]["geomean_speedup_vs_default"] / sel["oracle"]["geomean_speedup_vs_default"]


def shuffled(grid, seed):
    """The grid's configurations in a random order: the first 10% start."""
    order = sorted({key(r) for r in grid})
    random.Random(seed).shuffle(order)
    return order, set(order[: len(order) // 10])


def replay(binp, out, name, header, grid, test, seed, arm):
    """Captured share at each REPORT percentage for one arm and seed."""
    order, start = shuffled(grid, seed)
    configs = order
    measured = [r for r in grid if r["algorithm"] == "default" or key(r) in start]
    points = sum(r["algorithm"] != "default" for r in grid)
    have = lambda: sum(r["algorithm"] != "default" for r in measured)
    gridfile = f"{out}/{name}.grid.csv"
    write(gridfile, header, grid)
    taken, shares = set(start), {}
    rest = iter(order[len(configs) // 10:])
    for pct in STEPS:
        now = f"{out}/{name}.s{seed}.{arm}.{pct}.csv"
        cur = f"{out}/{name}.s{seed}.{arm}.cur.csv"
        write(cur, header, measured)
        budget = pct * points // 100 - have()
        if budget > 0 and arm == "plan":
            nxt = f"{out}/{name}.s{seed}.next.csv"
            p = subprocess.run([binp, "plan", "--data", cur, "--grid", gridfile, "--budget", str(budget),
                                "--seed", str(seed), "--out", nxt] + os.environ.get("PLAN_ARGS", "").split(),
                               capture_output=True, text=True)
            if p.returncode:
                raise SystemExit(f"plan: {p.stderr}")
            measured += list(csv.DictReader(open(nxt)))
        elif budget > 0:
            want = pct * len(configs) // 100
            while len(taken) < want:
                taken.add(next(rest))
            measured = [r for r in grid if r["algorithm"] == "default" or key(r) in taken]
        if pct in REPORT:
            write(now, header, measured)
            shares[pct] = captured(binp, now, test)
    return shares


def main():
    binp, out, seeds, files = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
    os.makedirs(out, exist_ok=True)
    print("| file | train configs | 10% start | 20% plan | 20% random | 30% plan | 30% random | 50% plan | 50% random | 100% | 30% plan − 100% (points) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    seen = set()
    for path in files:
        name = os.path.basename(path)[:-4]
        rows = list(csv.DictReader(open(path)))
        procs = sorted({int(r["procs"]) for r in rows})
        if name in seen or len(procs) < 8:
            continue
        seen.add(name)
        test_procs = set(procs[1::3])
        header = list(rows[0].keys())
        grid = [r for r in rows if int(r["procs"]) not in test_procs]
        test = f"{out}/{name}.test.csv"
        write(test, header, [r for r in rows if int(r["procs"]) in test_procs])
        full = f"{out}/{name}.full.csv"
        write(full, header, grid)
        cells = {}
        for seed in range(1, seeds + 1):
            _, start = shuffled(grid, seed)
            first = f"{out}/{name}.s{seed}.start.csv"
            write(first, header, [r for r in grid if r["algorithm"] == "default" or key(r) in start])
            cells.setdefault("start", []).append(captured(binp, first, test))
            for arm in ("plan", "random"):
                for pct, share in replay(binp, out, name, header, grid, test, seed, arm).items():
                    cells.setdefault((pct, arm), []).append(share)
        mean = lambda xs: sum(xs) / len(xs)
        row = [name, str(len({key(r) for r in grid})), f"{mean(cells['start']):.3f}"]
        for pct in REPORT:
            for arm in ("plan", "random"):
                row.append(f"{mean(cells[(pct, arm)]):.3f}")
        whole = captured(binp, full, test)
        row.append(f"{whole:.3f}")
        row.append(f"{100 * (mean(cells[(30, 'plan')]) - whole):+.2f}")
        print("| " + " | ".join(row) + " |", flush=True)


if __name__ == "__main__":
    main()
