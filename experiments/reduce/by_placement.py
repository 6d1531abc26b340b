#!/usr/bin/env python3
"""Captured share per placement: each selector's geometric-mean speed-up over
`default` divided by the oracle's, for the test configurations on one node and
on several, from `collsel evaluate` (markdown, per-configuration table),
with the same two protocols as ../shared/tools/selection_table.py (within:
every third procs value from the 2nd held out; extrap: train on procs <= 1/4
of the largest, test on procs >= 1/2).
Usage: by_placement.py BIN FILE.csv [COLLECTIVE]"""
import csv, math, os, re, subprocess, sys, tempfile, collections

def gm(xs): return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")

def split(procs, proto):
    if proto == "within":
        test = set(procs[1::3]); return set(procs) - test, test
    lo, hi = procs[-1] // 4, procs[-1] // 2
    return {p for p in procs if p <= lo}, {p for p in procs if p >= hi}

def main():
    binp, path = sys.argv[1], sys.argv[2]
    coll = sys.argv[3] if len(sys.argv) > 3 else "reduce"
    rows = [r for r in csv.DictReader(open(path)) if (r.get("collective") or "bcast") == coll]
    procs = sorted({int(r["procs"]) for r in rows})
    print(f"{os.path.basename(path)} [{coll}]")
    for proto in ("within", "extrap"):
        train, test = split(procs, proto)
        d = tempfile.mkdtemp(prefix="placement-")
        files = {}
        for name, keep in (("train", train), ("test", test)):
            files[name] = os.path.join(d, name + ".csv")
            with open(files[name], "w", newline="") as f:
                w = csv.DictWriter(f, rows[0].keys()); w.writeheader()
                w.writerows(r for r in rows if int(r["procs"]) in keep)
        out = subprocess.run([binp, "evaluate", "--train", files["train"], "--test", files["test"]],
                             capture_output=True, text=True, check=True).stdout
        lines = [l for l in out.splitlines() if l.startswith("| ")]
        header = next(l for l in lines if l.startswith("| procs |"))
        cols = [c.strip() for c in header.strip("|").split("|")]
        sel = cols[cols.index("default"):]
        groups = collections.defaultdict(lambda: collections.defaultdict(list))
        for l in lines:
            cells = [c.strip() for c in l.strip("|").split("|")]
            if len(cells) != len(cols) or not cells[0].isdigit():
                continue
            nodes = int(cells[1].split("x")[0])
            place = "one node" if nodes == 1 else f"{nodes} nodes"
            slow = {}
            for name, cell in zip(sel, cells[len(cols) - len(sel):]):
                m = re.search(r"\+(\d+)%", cell)
                slow[name] = None if "n/m" in cell or not m else 1 + int(m.group(1)) / 100
            if slow["default"] is None:
                continue
            groups[place]["oracle"].append(slow["default"])
            for name, s in slow.items():
                if s is not None:
                    groups[place][name].append(slow["default"] / s)
        for place, g in sorted(groups.items()):
            o = gm(g["oracle"])
            cells = ", ".join(f"{n} {gm(v) / o:.3f}" for n, v in g.items() if n != "oracle")
            print(f"  {proto:6} {place:9} ({len(g['oracle'])} configs, oracle {o:.2f}x over default): {cells}")

if __name__ == "__main__":
    main()
