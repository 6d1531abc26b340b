#!/usr/bin/env python3
"""Dry run of the noise rule of src/measured.rs on the two ORFEO campaign pairs (palacios, cusmafait):
the measured best of one campaign applied to the other, switching always vs only where the
advantage beats the noise (several readings of min/max). Usage: python3 experiments/noise_rule.py"""
import csv, math, collections, sys
def load(f):
    t=collections.defaultdict(dict)
    for r in csv.DictReader(open(f)):
        k=(int(r['procs']),int(r['msg_bytes']))
        t[k][r['algorithm']]=(float(r['time_us']),float(r['time_min_us'] or 'nan'),float(r['time_max_us'] or 'nan'))
    return t
for part in ['epyc','thin']:
  A=load(f'../shared/data/palacios_orfeo_{part}.csv'); B=load(f'../shared/data/cusmafait_orfeo_{part}.csv')
  for (a,b,name) in [(A,B,'pal->cus'),(B,A,'cus->pal')]:
    rows=[]
    for k,c in a.items():
        if k not in b or 'default' not in c or 'default' not in b[k]: continue
        best=min(c,key=lambda x:c[x][0])
        if best=='default' or best not in b[k]: 
            rows.append((0,0,0)); continue
        d,x=c['default'],c[best]
        gain=math.log(d[0]/x[0])
        # noise: relative half-range of each
        noise=max(math.log(d[2]/d[1]), math.log(x[2]/x[1]))/2
        sep = x[2] < d[1]  # intervals separate: best's slowest beat default's fastest
        out=math.log(b[k]['default'][0]/b[k][best][0])
        rows.append((gain,noise,out,sep))
    n=len(rows)
    for rule,f in [('all switches',lambda r: r[0]>0),('gain>5%',lambda r:r[0]>0.05),('gain>noise',lambda r:r[0]>0 and r[0]>r[1]),('separate',lambda r:r[0]>0 and r[3]), ('gain>noise/2', lambda r: r[0]>0 and r[0]>r[1]/2)]:
        s=[r[2] for r in rows if len(r)>3 and f(r)]
        print(part,name,rule,len(s),'of',n,'geomean speedup over default on other campaign: %.4f'%math.exp(sum(s)/n), 'losses>10%%: %d'%sum(v< -math.log(1.1) for v in s))
print()
for part in ['epyc','thin']:
  A=load(f'../shared/data/palacios_orfeo_{part}.csv'); B=load(f'../shared/data/cusmafait_orfeo_{part}.csv')
  tot=[]
  for (a,b,name) in [(A,B,'pal->cus'),(B,A,'cus->pal')]:
    for rule in ['all','1sd']:
      s=[];n=0;loss=0
      for k,c in a.items():
        if k not in b or 'default' not in c or 'default' not in b[k]: continue
        n+=1
        best=min(c,key=lambda x:c[x][0])
        if best=='default' or best not in b[k]: continue
        d,x=c['default'],c[best]
        gain=math.log(d[0]/x[0])
        sd=math.hypot(math.log(d[2]/d[1])/4, math.log(x[2]/x[1])/4)
        if rule=='1sd' and gain<=sd: continue
        out=math.log(b[k]['default'][0]/b[k][best][0]); s.append(out); loss+= out< -math.log(1.1)
      print(part,name,rule,len(s),'%.4f'%math.exp(sum(s)/n),loss)
