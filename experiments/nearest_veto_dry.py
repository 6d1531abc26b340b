#!/usr/bin/env python3
"""Dry run of vetoes on auto's picks by the trained neighbouring jobs (before building one):
auto's pick (from `evaluate --format csv`) is replaced by default where
  V1all  - any trained neighbour (nearest procs below and above) measured default faster;
  V2any  - every such neighbour did;
  V3near - the nearest one did (ties in log distance: the contradicting one first);
  V4gm   - the geometric mean of the neighbours' ratios pick/default is >= 1.
Neighbours share mapping, nodes and message size. Prints captured share / share of
configurations >10% slower than default, per rule.
Usage: nearest_veto_dry.py BIN PARTS_DIR within|extrap NAME...
  (PARTS_DIR from experiments/protocols.py; NAME: a file's name without .csv)"""
import csv, math, statistics, subprocess, sys, collections

BIN, parts, proto, names = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
def gm(xs): return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float('nan')
def key(r): return (r['algorithm'], r.get('segsize_bytes') or '', r.get('fanout') or '')
for name in names:
    tr, te = f'{parts}/{name}.{proto}.train.csv', f'{parts}/{name}.{proto}.test.csv'
    rows = list(csv.DictReader(open(tr)))
    colls = sorted({r.get('collective') or 'bcast' for r in rows})
    for coll in colls:
        args = [BIN, 'evaluate', '--train', tr, '--test', te, '--format', 'csv']
        if len(colls) > 1 or coll != 'bcast':
            args += ['--collective', coll]
        p = subprocess.run(args, capture_output=True, text=True)
        if p.returncode:
            print(name, coll, 'evaluate failed')
            continue
        t = collections.defaultdict(dict)
        for r in rows:
            if (r.get('collective') or 'bcast') == coll:
                t[(r['mapping'], int(r['nodes'] or 0), int(r['msg_bytes']))].setdefault(int(r['procs']), collections.defaultdict(list))[key(r)].append(float(r['time_us']))
        # Repeated rows count by their median, as in `train`.
        t = {k: {q: {c: statistics.median(v) for c, v in cs.items()} for q, cs in jobs.items()} for k, jobs in t.items()}
        by = collections.defaultdict(dict)
        for r in csv.DictReader(p.stdout.splitlines()):
            by[(r['mapping'], int(r['nodes']), int(r['procs']), int(r['msg_bytes']))][r['selector']] = r
        res = collections.defaultdict(list)
        for (m, n, p_, s), d in by.items():
            if 'auto' not in d:
                continue
            td, to = float(d['default']['time_us']), float(d['oracle']['time_us'])
            a = d['auto']; ta = float(a['time_us']); ka = key(a)
            res['oracle'].append((td / to, 0)); res['auto'].append((td / ta, ta > 1.1 * td))
            jobs = t.get((m, n, s), {})
            lo = [q for q in jobs if q < p_]; hi = [q for q in jobs if q > p_]
            votes = []
            for q in ([max(lo)] if lo else []) + ([min(hi)] if hi else []):
                dk = [v for k, v in jobs[q].items() if k[0] == 'default']
                if ka in jobs[q] and dk:
                    votes.append((abs(math.log(q / p_)), jobs[q][ka] < dk[0], jobs[q][ka] / dk[0]))
            votes.sort()
            isd = ka[0] == 'default'
            rules = {'V1all': isd or all(v[1] for v in votes),
                     'V2any': isd or not votes or any(v[1] for v in votes),
                     'V3near': isd or not votes or votes[0][1],
                     'V4gm': isd or not votes or gm([v[2] for v in votes]) < 1}
            for rn, keep in rules.items():
                tn = ta if keep else td
                res[rn].append((td / tn, tn > 1.1 * td))
        o = gm([x for x, _ in res['oracle']])
        out = [f"{k} {gm([x for x, _ in v]) / o:.3f}/{100 * sum(w for _, w in v) / len(v):.0f}%" for k, v in res.items() if k != 'oracle']
        print(f"{name} [{coll}] n={len(res['auto'])} default {1 / o:.3f} ", ' '.join(out))
