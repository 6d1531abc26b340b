#!/usr/bin/env bash
# Shows that Open MPI applies a rules file: 4 MiB MPI_Bcast on 4 ranks, the
# library default vs a classic rules file forcing pipeline with 1 KiB
# segments (the decision tests/ompi_rules.rs exports end to end). Prints the
# minimum time over 5 broadcasts for 3 runs of each.
# Run from the repository root: bash experiments/ompi_rules.sh
set -euo pipefail
dir=$(mktemp -d)
mpicc -O2 -o "$dir/bcast_timer" tests/mpi/bcast_timer.c
printf '1\n7\n1\n4\n1\n0 3 0 1024\n' > "$dir/pipeline.rules"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for run in 1 2 3; do
  plain=$(mpirun -n 4 --oversubscribe "$dir/bcast_timer" 4194304 5)
  ruled=$(OMPI_MCA_coll_tuned_use_dynamic_rules=1 \
          OMPI_MCA_coll_tuned_dynamic_rules_filename="$dir/pipeline.rules" \
          mpirun -n 4 --oversubscribe "$dir/bcast_timer" 4194304 5)
  echo "run $run: default ${plain#min_us } us, rules file ${ruled#min_us } us"
done
rm -rf "$dir"
