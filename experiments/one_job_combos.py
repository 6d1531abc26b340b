#!/usr/bin/env python3
"""Combinations of two or more selectors beyond one trained job size, scored
from `evaluate --format csv` output (every selector policy-free: a binary with
attic/fixed-policy-override.patch, XPOL=0,0,inf). Usage: one_job_combos.py CSV...
Prints captured share (geomean speed-up over default / the oracle's) / share
of configurations >10% slower than default, per selector and combination."""
import csv,sys,math,collections
def gm(x): return math.exp(sum(map(math.log,x))/len(x))
for f in sys.argv[1:]:
    rows=list(csv.DictReader(open(f)))
    by=collections.defaultdict(dict)
    for r in rows:
        k=(r['procs'],r['nodes'],r['mapping'],r['msg_bytes'],r['imbalance'])
        by[k][r['selector']]=r
    sels=sorted({r['selector'] for r in rows})
    def score(pickf):
        sp=[];orc=[];worse=0
        for k,d in by.items():
            td=float(d['default']['t_default_us']); tb=float(d['default']['t_best_us'])
            t=pickf(d)
            if t is None: continue
            sp.append(td/t); orc.append(td/tb); worse+= t>1.1*td
        return gm(sp)/gm(orc), worse/len(sp)
    t=lambda d,s: float(d[s]['time_us']) if d[s]['time_us'] else None
    cand=lambda d,s: (d[s]['algorithm'],d[s]['segsize_bytes'],d[s]['fanout'],d[s]['impl'])
    out={s:score(lambda d,s=s:t(d,s)) for s in sels}
    out['agree(nearest,analytical)']=score(lambda d: t(d,'nearest') if cand(d,'nearest')==cand(d,'analytical') else t(d,'default'))
    out['both-leave(nearest,analytical)']=score(lambda d: t(d,'nearest') if d['analytical']['algorithm']!='default' and d['nearest']['algorithm']!='default' else t(d,'default'))
    learn=['knn','gbm','gam','linear','hybrid-knn','hybrid-gbm','hybrid-gam','analytical']
    def vote(d,frac):
        c=collections.Counter(cand(d,s) for s in learn+['nearest'])
        top,n=c.most_common(1)[0]
        if top[0]!='default' and n>frac*9:
            s=next(s for s in learn+['nearest'] if cand(d,s)==top); return t(d,s)
        return t(d,'default')
    out['majority']=score(lambda d: vote(d,0.5))
    out['nearest-if-majority-leaves']=score(lambda d: t(d,'nearest') if sum(d[s]['algorithm']!='default' for s in learn)>len(learn)/2 else t(d,'default'))
    print('==',f.split('/')[-1])
    for s,(c,w) in out.items():
        if s in ('oracle',): continue
        print(f'  {s:32s} {c:.3f} / {100*w:.0f}%')
