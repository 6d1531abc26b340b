#!/usr/bin/env python3
"""Own / Open MPI time ratio per algorithm of bench campaigns measured with
`--impl own,ompi`: for every (algorithm, procs, size) measured by both, the
ratio; per algorithm the median over all pairs, below 64 KiB, and from
64 KiB (median and range), and the number of pairs. Markdown rows.
Usage: own_vs_ompi.py FILE.csv..."""
import csv, statistics, sys

for path in sys.argv[1:]:
    times = {}
    for r in csv.DictReader(open(path)):
        if r['algorithm'] == 'default':
            continue
        key = (r['algorithm'], r['procs'], int(r['msg_bytes']), r['segsize_bytes'], r['fanout'])
        times.setdefault(key, {})[r['impl']] = float(r['time_us'])
    ratios = {}
    for (algorithm, _, size, _, _), t in times.items():
        if 'own' in t and 'ompi' in t:
            ratios.setdefault(algorithm, []).append((size, t['own'] / t['ompi']))
    print(path)
    print('| algorithm | median | below 64 KiB | from 64 KiB (median, range) | pairs |')
    print('|---|---|---|---|---|')
    for algorithm, pairs in sorted(ratios.items()):
        small = [x for m, x in pairs if m < 65536]
        large = sorted(x for m, x in pairs if m >= 65536)
        med = lambda xs: f'{statistics.median(xs):.3f}' if xs else '-'
        span = f', {large[0]:.2f}-{large[-1]:.2f}' if large else ''
        print(f'| {algorithm} | {med([x for _, x in pairs])} | {med(small)} | {med(large)}{span} | {len(pairs)} |')
