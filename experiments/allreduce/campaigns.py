"""Another campaign of the same machine: train on campaign A, judge on
campaign B (the same job sizes measured again).

  python3 experiments/allreduce/campaigns.py BINARY A.csv B.csv

Prints `evaluate`'s selectors as captured share of the oracle's speed-up
over `default` / share >10% slower than `default` (`naive` here: at each
configuration, the best candidate A measured there).
"""
import json, subprocess, sys


def main():
    binp, a, b = sys.argv[1:4]
    out = subprocess.run([binp, "evaluate", "--train", a, "--test", b, "--format", "json"],
                         capture_output=True, text=True, check=True)
    sel = {s["name"]: s for s in json.loads(out.stdout)["selectors"]}
    oracle = sel["oracle"]["geomean_speedup_vs_default"]
    for name, s in sel.items():
        g = s.get("geomean_speedup_vs_default")
        if g:
            print(f"{name:12} {g / oracle:.3f} / {100 * (s.get('worse_than_default_10pct_rate') or 0):.0f}%")


if __name__ == "__main__":
    main()
