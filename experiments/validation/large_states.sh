#!/usr/bin/env bash
# How long the machine's large-message state lasts: every PAUSE seconds,
# two short plain-loop jobs (rules_timer APP=1) of MPI_Allreduce 1 MiB on
# 2 bound ranks, `default` then linear forced, each job's warm figure (µs).
# One line per pair: "unix_time default_us linear_us".
# Usage: N=80 PAUSE=15 bash experiments/validation/large_states.sh > FILE
set -euo pipefail
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
T=${RULES_TIMER:-/tmp/rules_timer}
N=${N:-80}
PAUSE=${PAUSE:-15}
one() {
  APP=1 mpirun -n 2 --bind-to core -x APP --mca coll_tuned_use_dynamic_rules 1 \
    --mca coll_tuned_allreduce_algorithm "$1" "$T" allreduce:1048576 allreduce:1048576 |
    awk 'END {print $4}'
}
for i in $(seq 1 "$N"); do
  echo "$(date +%s) $(one 0) $(one 1)"
  sleep "$PAUSE"
done
