#!/usr/bin/env bash
# The extrapolation split of selection_table.py (train on procs <= 1/4 of the
# largest, test on procs >= 1/2) of FILE, scored by `evaluate` once per
# XPOL setting (needs a binary built with attic/fixed-policy-override.patch).
# Usage: bash experiments/one_job_extrapolation.sh FILE 0,0,inf 0.1,0,inf ...
f=$1; shift
python3 - "$f" <<'PY'
import csv,sys
rows=list(csv.DictReader(open(sys.argv[1])))
procs=sorted({int(r['procs']) for r in rows}); lo,hi=procs[-1]//4,procs[-1]//2
w=csv.DictWriter(open('/tmp/x_train.csv','w',newline=''),rows[0].keys()); w.writeheader(); [w.writerow(r) for r in rows if int(r['procs'])<=lo]
w=csv.DictWriter(open('/tmp/x_test.csv','w',newline=''),rows[0].keys()); w.writeheader(); [w.writerow(r) for r in rows if int(r['procs'])>=hi]
PY
for pol in "$@"; do echo "== $f XPOL=$pol"; XPOL=$pol target/release/collsel evaluate --train /tmp/x_train.csv --test /tmp/x_test.csv 2>&1 | sed -n '/^| selector/,/^$/p' | grep -v "^|---" | awk -F'|' '{printf "%-12s %s %s %s\n",$2,$5,$7,$10}'; done
