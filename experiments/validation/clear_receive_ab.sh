#!/usr/bin/env bash
# The harness writing each call's receive buffer before the call (as an
# application does) against the harness that did not: the same rules file
# confirmed by `verify --confirm` of both binaries, in alternating separate
# jobs, and in each round one pair of independent plain-loop jobs
# (rules_timer APP=1, rules on and off) at the sizes the file switches.
# Usage: OLD=/tmp/collsel-old NEW=target/release/collsel ROUNDS=8 \
#   bash experiments/validation/clear_receive_ab.sh RULES OUTDIR
# Then: python3 experiments/validation/clear_receive_ab.py OUTDIR
set -euo pipefail
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
rules=$(realpath "$1")
out=$2
ROUNDS=${ROUNDS:-8}
RULES_TIMER=${RULES_TIMER:-/tmp/rules_timer}
ITEMS=${ITEMS:-allreduce:16384 bcast:4096 reduce:4096 gather:1 allgather:262144 gather:4194304}
mkdir -p "$out"
cp "$rules" "$out/rules"
confirm() {
  local bin=$1 dir=$2
  mkdir -p "$dir"
  cp "$out/rules" "$dir/rules"
  mpirun -n 2 --bind-to core "$bin" verify --confirm "$dir/rules" --confirmed "$dir/confirmed" \
    --time-budget 10s > "$dir/log" 2>&1
}
timer() {
  mpirun -n 2 --bind-to core "$@" env APP=1 "$RULES_TIMER" $ITEMS
}
for r in $(seq 1 "$ROUNDS"); do
  if (( r % 2 )); then order="old new"; else order="new old"; fi
  for which in $order; do
    if [ "$which" = old ]; then bin=$OLD; else bin=$NEW; fi
    confirm "$bin" "$out/$which-$r"
  done
  timer --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename "$out/rules" \
    > "$out/on-$r.txt"
  timer > "$out/off-$r.txt"
  echo "round $r done"
done
