#!/usr/bin/env bash
# MPI_Reduce_scatter of 1 MiB per rank on 2 bound ranks and glibc's
# allocator: the plain loop (rules_timer, APP=1) in four protocols, µs.
#   history RULES: mc48's plain-loop items, reduce_scatter last, and
#     reduce_scatter alone, rules on and off (three rounds);
#   forced: each algorithm forced, the item twice per job (two jobs);
#   pinned: algorithms 0 and 2 with glibc's thresholds exported as the
#     harness pins them, fresh and settled (two jobs);
#   items: algorithms 0 and 2, the item six times per job (three jobs).
# Usage: bash experiments/validation/reduce_scatter_alloc.sh history RULES
#        bash experiments/validation/reduce_scatter_alloc.sh forced|pinned|items
set -euo pipefail
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 APP=1
T=${RULES_TIMER:-/tmp/rules_timer}
rs=reduce_scatter:1048576
times() { mpirun -n 2 --bind-to core -x APP "$@" | awk '{printf "%.0f ", $4}'; }
forced() { local a=$1; shift; times --mca coll_tuned_use_dynamic_rules 1 \
  --mca coll_tuned_reduce_scatter_algorithm "$a" "$@"; }
case "$1" in
history)
  rules=(--mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename "$2")
  pre="bcast:4096 reduce:4096 allreduce:262144 allgather:4096 allgather:65536 gather:1"
  for k in 1 2 3; do
    # shellcheck disable=SC2086
    echo "all items: on $(times "${rules[@]}" "$T" $pre $rs | awk '{print $NF}')" \
      "off $(times "$T" $pre $rs | awk '{print $NF}')" \
      "| alone: on $(times "${rules[@]}" "$T" $rs) off $(times "$T" $rs)"
  done ;;
forced)
  for k in 1 2; do for a in 0 1 2 3; do echo "algorithm $a: $(forced $a "$T" $rs $rs)"; done; done ;;
pinned)
  for k in 1 2; do for a in 0 2; do
    fresh=$(MALLOC_MMAP_THRESHOLD_=131072 MALLOC_TRIM_THRESHOLD_=131072 \
      forced $a -x MALLOC_MMAP_THRESHOLD_ -x MALLOC_TRIM_THRESHOLD_ "$T" $rs $rs)
    settled=$(MALLOC_MMAP_THRESHOLD_=33554432 MALLOC_TRIM_THRESHOLD_=67108864 \
      forced $a -x MALLOC_MMAP_THRESHOLD_ -x MALLOC_TRIM_THRESHOLD_ "$T" $rs $rs)
    echo "algorithm $a: fresh $fresh settled $settled"
  done; done ;;
items)
  for k in 1 2 3; do for a in 0 2; do echo "algorithm $a: $(forced $a "$T" $rs $rs $rs $rs $rs $rs)"; done; done ;;
*) echo "usage: $0 history RULES | forced | pinned | items" >&2; exit 2 ;;
esac
