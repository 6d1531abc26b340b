#!/usr/bin/env python3
"""`default`'s time over the switch's, per protocol, from the job lines of
gather_1b_protocols.sh (or of the loop in d3f03f1's message): each job's
last (warm) figure, paired round by round in the order the jobs ran;
geometric mean and each round's ratio. `bench` lines: collsel's own ratio
(per binary, `bench:BINARY`).

Usage: protocol_ratios.py FILE...
"""
import collections, math, re, sys


def main():
    for path in sys.argv[1:]:
        times = collections.defaultdict(list)
        bench = collections.defaultdict(list)
        for line in open(path):
            if line.startswith("bench"):
                label, *fields = line.split()
                t = [float(x.split("=")[1]) for x in fields]
                bench[label].append(t[0] / t[1])
                continue
            m = re.match(r"(.*?) alg=(\d+) ", line)
            if m:
                times[(m.group(1), m.group(2) == "0")].append(float(line.split()[-1]))
        print(f"{path}:")
        for setting in sorted({s for s, _ in times}):
            ratios = [d / s for d, s in zip(times[(setting, True)], times[(setting, False)])]
            gm = math.exp(sum(map(math.log, ratios)) / len(ratios))
            print(f"  {setting}: {gm:.3f} ({', '.join(f'{r:.2f}' for r in ratios)})")
        for label, ratios in bench.items():
            name = label.split(":", 1)[1] if ":" in label else ""
            print(f"  collsel bench {name}: {', '.join(f'{r:.3f}' for r in ratios)}")


if __name__ == "__main__":
    main()
