"""Leave-one-communicator-size-out selection figures, for campaigns with
too few job sizes for the selection table's protocols (Noctua 2's allreduce:
8, 16 and 256 ranks).

  python3 experiments/allreduce/held_out.py BINARY FILE COLLECTIVE [MPI]

For each procs value P with `default` rows: train on every other procs
value of the file's COLLECTIVE rows (of MPI only, when given: the `mpi`
column), test on P. Cells as in ../shared/tools/selection_table.py:
captured share of the oracle's geometric-mean speed-up over default /
share of configurations >10% slower than default; `naive` takes the best
candidate of the nearest trained procs.
"""
import csv, json, os, subprocess, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "tools"))
from selection_table import naive  # noqa: E402


def main():
    binp, path, coll = sys.argv[1:4]
    mpi = sys.argv[4] if len(sys.argv) > 4 else None
    rows = [r for r in csv.DictReader(open(path))
            if (r.get("collective") or "bcast") == coll and (mpi is None or r.get("mpi") == mpi)]
    procs = sorted({int(r["procs"]) for r in rows})
    with_default = sorted({int(r["procs"]) for r in rows if r["algorithm"] == "default"})
    print(f"{os.path.basename(path)} [{coll}{', ' + mpi if mpi else ''}]: procs {procs}\n")
    print("| test procs | train procs | default | naive | analytical | best learner | auto |")
    print("|---|---|---|---|---|---|---|")
    for p in with_default:
        train = set(procs) - {p}
        if not train:
            continue
        d = tempfile.mkdtemp(prefix="heldout-")
        files = {}
        for part, keep in (("train", train), ("test", {p})):
            files[part] = os.path.join(d, f"{part}.csv")
            with open(files[part], "w", newline="") as f:
                w = csv.DictWriter(f, rows[0].keys())
                w.writeheader()
                w.writerows(r for r in rows if int(r["procs"]) in keep)
        out = subprocess.run([binp, "evaluate", "--train", files["train"], "--test", files["test"],
                              "--format", "json"], capture_output=True, text=True)
        if out.returncode:
            print(f"| {p} | {sorted(train)} | evaluate failed: {out.stderr.strip()[-100:]} | | | | |")
            continue
        sel = {s["name"]: s for s in json.loads(out.stdout)["selectors"]}
        o = sel["oracle"]["geomean_speedup_vs_default"]

        def cell(s):
            g = s.get("geomean_speedup_vs_default")
            return "—" if not g else f"{g / o:.3f} / {100 * (s.get('worse_than_default_10pct_rate') or 0):.0f}%"
        skip = ("oracle", "default", "ompi-fixed", "analytical", "auto", "naive")
        learners = {k: v for k, v in sel.items() if k not in skip and v.get("geomean_speedup_vs_default")}
        best = max(learners, key=lambda k: learners[k]["geomean_speedup_vs_default"]) if learners else None
        nv = naive(rows, train, {p}, "within")
        print(f"| {p} | {sorted(train)} | {cell(sel['default'])} | "
              f"{'—' if nv is None else f'{nv[0]:.3f} / {100 * nv[1]:.0f}%'} | "
              f"{cell(sel['analytical']) if 'analytical' in sel else '—'} | "
              f"{best} {cell(sel[best]) if best else ''} | {cell(sel['auto'])} |")


if __name__ == "__main__":
    main()
