#!/bin/bash
# Own/Open MPI time ratio of reduce algorithms at large messages, where
# Open MPI's reduce allocates its accumulator and segments every call.
# Usage: bash experiments/reduce_working_memory.sh BIN OUT.csv
# (BIN: a release build of collsel; run once per build, alternating.)
set -euo pipefail
bin=$1
out=$2
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for n in 4 8; do
    mpirun -np "$n" --oversubscribe "$bin" bench --collective reduce \
        --algorithms linear,binomial,pipeline,in_order_binary,rabenseifner \
        --segsizes 0,64K --impl own,ompi --sizes 4K,64K,256K,1M,4M \
        --out "$out" 2>&1 | grep -v '^bench: \|warning' || true
done
python3 - "$out" <<'PY'
import csv, sys, statistics
rows = list(csv.DictReader(open(sys.argv[1])))
t = {}
for r in rows:
    key = (r['procs'], int(r['msg_bytes']), r['algorithm'], r['segsize_bytes'])
    t.setdefault(key, {})[r['impl']] = float(r['time_us'])
by = {}
for (p, m, a, s), v in sorted(t.items()):
    if 'own' in v and 'ompi' in v:
        by.setdefault((a, m >= 65536), []).append(v['own'] / v['ompi'])
print('| algorithm | sizes | pairs | median own/Open MPI | range |')
print('|---|---|---:|---:|---|')
for (a, big), v in sorted(by.items()):
    print(f"| {a} | {'64 KiB-4 MiB' if big else '4 KiB'} | {len(v)} | "
          f"{statistics.median(v):.3f} | {min(v):.3f}-{max(v):.3f} |")
PY
