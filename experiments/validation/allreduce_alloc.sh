#!/usr/bin/env bash
# MPI_Allreduce of 4 MiB on 2 bound ranks: `default` against segmented
# ring (64 KiB segments; mc57's kept switch), each forced by MCA, in the
# plain loop (rules_timer, APP=1), the item three times per job, with
# glibc's thresholds left to glibc, or exported as the harness pins them
# (fresh 128 KiB / 128 KiB, settled 32 MiB / 64 MiB). µs per item, ROUNDS
# rounds of the six jobs, the order rotating.
# Usage: bash experiments/validation/allreduce_alloc.sh [ROUNDS]
set -euo pipefail
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 APP=1
T=${RULES_TIMER:-/tmp/rules_timer}
it=allreduce:4194304
run() {
  local alg=$1 regime=$2 env=(GLIBC_OWN=1) pass=()
  case $regime in
    fresh) env=(MALLOC_MMAP_THRESHOLD_=131072 MALLOC_TRIM_THRESHOLD_=131072) ;;
    settled) env=(MALLOC_MMAP_THRESHOLD_=33554432 MALLOC_TRIM_THRESHOLD_=67108864) ;;
  esac
  [ "$regime" = glibc ] || pass=(-x MALLOC_MMAP_THRESHOLD_ -x MALLOC_TRIM_THRESHOLD_)
  env "${env[@]}" mpirun -n 2 --bind-to core -x APP "${pass[@]}" \
    --mca coll_tuned_use_dynamic_rules 1 \
    --mca coll_tuned_allreduce_algorithm "$alg" \
    --mca coll_tuned_allreduce_algorithm_segmentsize 65536 "$T" $it $it $it |
    awk -v a="$alg" -v r="$regime" '{t = t sprintf(" %.0f", $4)} END {print r, "algorithm", a, t}'
}
jobs=("0 glibc" "5 glibc" "0 fresh" "5 fresh" "0 settled" "5 settled")
for k in $(seq 1 "${1:-3}"); do
  for i in $(seq 0 5); do
    # shellcheck disable=SC2086
    run ${jobs[$(((i + k) % 6))]}
  done
done
