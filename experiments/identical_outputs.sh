#!/usr/bin/env bash
# Does a refactoring change what the tool decides? Trains a model on each
# of this project's campaigns (every Open MPI file; the MPICH file per
# collective) and writes every export format from it, with BIN; run it
# with the binaries before and after into two folders, then compare:
#   bash experiments/identical_outputs.sh BEFORE_BIN /tmp/before
#   bash experiments/identical_outputs.sh AFTER_BIN /tmp/after
#   diff -r <(cd /tmp/before && grep -r . | sed 's#/tmp/before##g') \
#           <(cd /tmp/after && grep -r . | sed 's#/tmp/after##g')
# Model folders name the folder they were written to; nothing else may differ.
set -euo pipefail
bin=$1 out=$2
base=../shared/reference/mpich-5.0.1-generic.json
mkdir -p "$out"
for f in data/local-2core*.csv; do
  n=$(basename "$f" .csv)
  [ "$n" = local-2core-mpich ] && continue
  "$bin" train "$f" --out "$out/m-$n" > "$out/train-$n.txt" 2>&1
  for fmt in table ompi-rules ompi-json ompi-han; do
    "$bin" predict --model "$out/m-$n" --nodes 1 --ppn 2 --format $fmt > "$out/$n.$fmt" 2>&1 || true
  done
  "$bin" predict --model "$out/m-$n" --nodes 1 --ppn 2 --format mpich-json --mpich-base $base \
    > "$out/$n.mpich-json" 2>&1 || true
done
for c in bcast reduce allreduce allgather alltoall; do
  n=mpich-$c
  "$bin" train data/local-2core-mpich.csv --collective $c --out "$out/m-$n" > "$out/train-$n.txt" 2>&1
  "$bin" predict --model "$out/m-$n" --nodes 1 --ppn 4 --format mpich-json --mpich-base $base \
    > "$out/$n.mpich-json" 2>&1 || true
  "$bin" predict --model "$out/m-$n" --nodes 1 --ppn 4 --format table > "$out/$n.table" 2>&1 || true
done
