#!/usr/bin/env bash
# The state each of JOBS short separate jobs of 2 bound ranks lands in:
# per job, its start time (s), MPI_Bcast of 4 KiB split-binary (forced,
# Open MPI algorithm 4) and the 1-byte ping-pong half round trip, µs, means
# over the job (state_probe.c, SECONDS each). With JOBS=1 SECONDS=180 one
# long job instead, every half second: whether a job's state moves within it.
# Usage: JOBS=60 SECONDS_PER_JOB=0.3 bash experiments/validation/job_states.sh
set -euo pipefail
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
here=$(dirname "$0")
exe=$(mktemp)
mpicc -O2 -o "$exe" "$here/state_probe.c"
JOBS=${JOBS:-60}
S=${SECONDS_PER_JOB:-0.3}
for i in $(seq 1 "$JOBS"); do
  start=$(date +%s.%N)
  mpirun -n 2 --bind-to core --mca coll_tuned_use_dynamic_rules 1 \
    --mca coll_tuned_bcast_algorithm 4 "$exe" "$S" |
    if [ "$JOBS" = 1 ]; then cat; else
      awk -v t="$start" '{b += $3; p += $5; n++} END {printf "%.1f %.3f %.3f\n", t, b / n, p / n}'
    fi
done
rm -f "$exe"
