#!/usr/bin/env bash
# MPI_Gather of 1 B on 2 bound ranks: `default` (0) against linear (1) in
# separate jobs timed by the plain loop, per protocol, alternating, ROUNDS
# rounds; and collsel's bench in its own jobs. Prints one line per job.
# COLLECTIVE, SIZE, ALG (Open MPI's id) and NAME (collsel's name for it)
# time another switch the same way. COLLSEL may name several binaries
# (space separated): each runs its own bench job per round.
# Usage: ROUNDS=5 RULES_TIMER=/tmp/rules_timer COLLSEL=target/release/collsel \
#   bash experiments/validation/gather_1b_protocols.sh
#   COLLECTIVE=allreduce SIZE=16384 ALG=3 NAME=recursive_doubling bash ...
set -euo pipefail
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
T=${RULES_TIMER:-/tmp/rules_timer}
C=${COLLSEL:-target/release/collsel}
ROUNDS=${ROUNDS:-5}
COLLECTIVE=${COLLECTIVE:-gather} SIZE=${SIZE:-1} ALG=${ALG:-1} NAME=${NAME:-linear}
rf=$(mktemp)
printf 'rank 0=localhost slot=1\nrank 1=localhost slot=0\n' > "$rf"
forced() { # protocol-env placement algorithm
  local env=$1 place=$2 alg=$3 bind=(--bind-to core)
  [ "$place" = reversed ] && bind=(--rankfile "$rf")
  env $env mpirun -n 2 "${bind[@]}" --mca coll_tuned_use_dynamic_rules 1 \
    --mca coll_tuned_${COLLECTIVE}_algorithm "$alg" "$T" "$COLLECTIVE:$SIZE" "$COLLECTIVE:$SIZE" |
    awk -v p="$env $place alg=$alg" '{printf "%s %s ", p, $4} END {print ""}'
}
for r in $(seq 1 "$ROUNDS"); do
  for env in APP=1 "APP=1 DUP=1" APP=0; do
    for place in core0 reversed; do
      for alg in 0 "$ALG"; do forced "$env" "$place" "$alg"; done
    done
  done
  for c in $C; do
    out=$(mktemp -d)
    mpirun -n 2 --bind-to core "$c" bench --collective "$COLLECTIVE" --sizes "$SIZE" \
      --algorithms "default,$NAME" --impl ompi --out "$out/b.csv" >/dev/null 2>&1
    python3 - "$out/b.csv" "$c" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print(f"bench:{sys.argv[2]}", " ".join(f"{r['algorithm']}={float(r['time_us']):.3f}" for r in rows))
PY
    rm -rf "$out"
  done
done
rm -f "$rf"
