#!/usr/bin/env bash
# What a coll/tuned rules file costs a call where it changes nothing: the
# same calls timed by rules_timer.c (APP=1) in alternating separate jobs
# with and without a rules file whose every rule is algorithm 0 (Open MPI's
# fixed decision), so any difference is the file's own per-call cost.
#   reduce  - MPI_Reduce 4/16/64 B: off; `zero` (five rules, all 0);
#             `lin` (linear at 16-63 B, 0 elsewhere, as mc42's rules);
#             `mca1` (linear forced by MCA, no file: what collsel's harness
#             times); `mca0` (dynamic rules on, no file)
#   entries - MPI_Reduce, MPI_Bcast, MPI_Allreduce 16 B: off; `zero`
#             (reduce only, five rules); `zero1` (reduce only, one rule)
#   all     - ten collectives at 16 B (barrier: none), bcast and reduce at
#             4 KiB: off; `zeroall` (five rules of 0 for every collective)
# Usage: bash experiments/validation/rules_lookup.sh MODE ROUNDS > RAW
#        python3 experiments/validation/rules_lookup.py RAW
# Each line of RAW: round variant collective bytes mean_us T.
set -euo pipefail
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 APP=1
mode=$1
rounds=${2:-100}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mpicc -O2 -o "$work/timer" "$here/rules_timer.c"
# One comm-size block (2 ranks and above) per collective id, with these
# message-size rules.
rules() {
  local file=$1; shift
  local ids=$1; shift
  { echo "$(wc -w <<< "$ids")"
    for id in $ids; do
      echo "$id"; echo 1; echo 2; echo $#
      for r in "$@"; do echo "$r"; done
    done; } > "$work/$file"
}
five=("0 0 0 0" "16 0 0 0" "64 0 0 0" "4096 0 0 0" "16384 0 0 0")
rules zero.rules 11 "${five[@]}"
rules zero1.rules 11 "0 0 0 0"
rules lin.rules 11 "0 0 0 0" "16 1 0 0" "64 0 0 0" "4096 0 0 0" "16384 0 0 0"
rules zeroall.rules "0 2 3 6 7 9 11 12 13 15" "${five[@]}"
case $mode in
  reduce) variants=(off zero lin mca1 mca0); items="reduce:4 reduce:16 reduce:64" ;;
  entries) variants=(off zero zero1); items="reduce:16 bcast:16 allreduce:16" ;;
  all) variants=(off zeroall)
    items="bcast:16 allreduce:16 gather:16 barrier:0 allgather:16 scatter:16 alltoall:16 reduce:16 bcast:4096 reduce:4096" ;;
  *) echo "mode: reduce, entries or all" >&2; exit 2 ;;
esac
job() {
  local mca=()
  case $1 in
    off) ;;
    mca0) mca=(--mca coll_tuned_use_dynamic_rules 1) ;;
    mca1) mca=(--mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_reduce_algorithm 1) ;;
    *) mca=(--mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename "$work/$1.rules") ;;
  esac
  # shellcheck disable=SC2086
  mpirun -n 2 --bind-to core -x APP "${mca[@]}" "$work/timer" $items
}
n=${#variants[@]}
for r in $(seq 1 "$rounds"); do
  # Each round starts with the next variant: every order position taken
  # by every variant in turn.
  for k in $(seq 0 $((n - 1))); do
    v=${variants[$(((k + r) % n))]}
    job "$v" | sed "s/^/$r $v /"
  done
done
