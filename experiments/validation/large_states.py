#!/usr/bin/env python3
"""Summarises large_states.sh: each sample's state (slow where `default`'s
time is above the geometric midpoint of its 10th and 90th percentiles),
how long each run of one state lasted, and linear's speed-up over
`default` in each state (geometric mean).
Usage: large_states.py FILE"""
import math, sys


def main(path):
    rows = [tuple(map(float, l.split())) for l in open(path) if len(l.split()) == 3]
    d = sorted(r[1] for r in rows)
    cut = math.sqrt(d[len(d) // 10] * d[(9 * len(d)) // 10])
    state = ["slow" if r[1] > cut else "fast" for r in rows]
    runs = []
    for s, r in zip(state, rows):
        if runs and runs[-1][0] == s:
            runs[-1][2] = r[0]
            runs[-1][3] += 1
        else:
            runs.append([s, r[0], r[0], 1])
    print(f"{len(rows)} samples over {(rows[-1][0] - rows[0][0]) / 60:.1f} min; "
          f"state cut at default {cut:.0f} us")
    for s in ("fast", "slow"):
        ratios = [r[1] / r[2] for r, x in zip(rows, state) if x == s]
        if ratios:
            gm = math.exp(sum(map(math.log, ratios)) / len(ratios))
            print(f"{s}: {len(ratios)} samples; default / linear {gm:.3f} "
                  f"({min(ratios):.2f}-{max(ratios):.2f})")
    print("runs (state, samples, minutes from first to last sample):")
    print(" ".join(f"{s}:{n}({(b - a) / 60:.1f})" for s, a, b, n in runs))


if __name__ == "__main__":
    main(sys.argv[1])
