#!/usr/bin/env bash
# The README's main job with its confirmation in CONFIRMATIONS separate jobs
# (tune 150 s, then `verify --confirm DIR --time-budget 10s` each), then the
# independent plain-loop check of what the last one kept (PAIRS alternating
# job pairs). Before each job a 0.3 s probe job says which state the
# machine's jobs are landing in (the split-binary broadcast of 4 KiB and
# the 1-byte ping-pong, µs: state_probe.c), and before and after the
# independent check. Per run N: DIR=/tmp/mcN, its
# logs beside it, the check in /tmp/mcN.indep.md and its jobs' times in
# /tmp/mcN.indep.raw.
# Usage: bash experiments/validation/main_job_confirmations.sh 1 2 3
set -uo pipefail
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../.."
CONFIRMATIONS=${CONFIRMATIONS:-3}
PAIRS=${PAIRS:-20}
probe=$(mktemp)
mpicc -O2 -o "$probe" "$here/state_probe.c"
state() {
  mpirun -n 2 --bind-to core --mca coll_tuned_use_dynamic_rules 1 \
    --mca coll_tuned_bcast_algorithm 4 "$probe" 0.3 |
    awk -v w="$1" '{b += $3; p += $5; n++} END {printf "state before %s: bcast %.2f pingpong %.3f\n", w, b / n, p / n}'
}
for i in "$@"; do
  d=/tmp/mc$i
  rm -rf "$d" "$d".*
  state tune > "$d.states"
  mpirun -n 2 target/release/collsel tune --time-budget 150s --collectives all \
    --out-dir "$d" > "$d.tune.log" 2>&1
  for j in $(seq 1 "$CONFIRMATIONS"); do
    state "confirmation $j" >> "$d.states"
    mpirun -n 2 target/release/collsel verify --confirm "$d" --time-budget 10s \
      > "$d.confirm$j.log" 2>&1
  done
  state "independent check" >> "$d.states"
  RAW="$d.indep.raw" RULES_TIMER=${RULES_TIMER:-/tmp/rules_timer} python3 "$here/independent.py" "$d" "$PAIRS" \
    --confirmed > "$d.indep.md" 2>&1
  state "after it" >> "$d.states"
  echo "== run $i"
  cat "$d.states"
  grep -h "switches confirmed" "$d".confirm*.log
  cat "$d.indep.md"
done
rm -f "$probe"
