#!/bin/bash
# A switch that wins only in the machine's disturbed state, confirmed by
# two builds of collsel in alternating separate jobs: MPI_Allreduce of
# 256 KiB by nonoverlapping on 2 bound ranks (0.85-0.94x of `default` in
# the machine's usual state, 1.13-1.26x in the disturbed one;
# experiments/validation.md, "the machine's state per replica"). Before
# each pair, state_probe.c's 1-byte ping-pong (µs) says which state the
# machine is in. Prints one line per job: round, build, probe, verdict.
# Usage: bash experiments/validation/state_ab.sh OLD_BIN NEW_BIN [ROUNDS]
set -u
old=$1 new=$2 rounds=${3:-6}
here=$(cd "$(dirname "$0")" && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d)
mpicc -O2 -o "$work/state_probe" "$here/state_probe.c"
printf '1\n2\n1\n2\n2\n0 0 0 0\n262144 2 0 0\n' > "$work/rules"
for r in $(seq 1 "$rounds"); do
  for which in old new; do
    bin=$old; [ $which = new ] && bin=$new
    pp=$(mpirun -n 2 --bind-to core "$work/state_probe" 1 4096 | tail -1 | awk '{print $NF}')
    rm -rf "$work/confirmed"
    verdict=$(mpirun -n 2 --bind-to core "$bin" verify --confirm "$work/rules" --time-budget 8s 2>&1 \
      | grep '^MPI_Allreduce ' | sed 's/  */ /g')
    echo "$r $which pingpong $pp | $verdict"
  done
done
rm -rf "$work"
