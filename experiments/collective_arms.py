#!/usr/bin/env python3
"""Counts the match-arm lines that name a `Collective` variant outside
src/collective/ in non-test code (a file's `#[cfg(test)] mod tests` and
what follows are left out): where a stage still spells out per collective
what the descriptions or one dispatch should say. An arm's pattern over
several lines counts each line that names a variant.
Usage (from the repository root): python3 experiments/collective_arms.py [FILE-SUBSTRING]
(with an argument, also prints the counted lines of the files it names)."""
import re,glob,sys
V="Bcast|Reduce|Allreduce|Allgather|Alltoall|Barrier|Gather|Scatter|ReduceScatter|ReduceScatterBlock"
name=re.compile(r'(Collective::(%s)\b|(^|[\s|(])(%s)\b(?!::|\())'%(V,V))
tot=0;per={}
for f in glob.glob('src/**/*.rs',recursive=True):
    if f.startswith('src/collective/'): continue
    t=open(f).read()
    m=re.search(r'\n#\[cfg\(test\)\]\s*\nmod tests',t)
    if m: t=t[:m.start()]
    n=0
    lines=t.split('\n')
    for i,l in enumerate(lines):
        s=l.strip()
        if s.startswith('//'): continue
        isarm = ('=>' in s) or s.startswith('|') or s.endswith('|')
        if isarm and name.search(s) and 'Collective' in s or (isarm and re.match(r'^(\|\s*)?(%s)(\s*\||\s*=>|\s*\{)'%V,s)):
            n+=1
            if len(sys.argv)>1 and sys.argv[1] in f: print(i+1, s)
    if n: per[f]=n; tot+=n
for f,n in sorted(per.items(),key=lambda x:-x[1]): print(n,f)
print('total',tot)
