#!/usr/bin/env bash
# Tune a Slurm allocation in one job: `collsel tune` measures a seed
# grid over the allocation's communicator sizes, then plans and measures in
# rounds, then writes data, model, Open MPI rules and a report, e.g.
#
#   sbatch --nodes=4 --ntasks-per-node=32 experiments/sbatch_tune.sh
#
# Keep BUDGET well below the Slurm limit: training and the report come
# after it. A job stopped early is resumed by submitting it again (the
# points in $DIR/data.csv are not measured again).
#SBATCH --job-name=collsel-tune
#SBATCH --time=00:45:00
#SBATCH --exclusive
#SBATCH --output=collsel-tune-%j.log
set -euo pipefail

DIR=${DIR:-$HOME/collsel/tuned/$(hostname -s | sed 's/[0-9]*$//')-${SLURM_JOB_NUM_NODES:-1}n}
BIN=${BIN:-$HOME/collsel/target/release/collsel}
BUDGET=${BUDGET:-30m}

srun --cpu-bind=cores "$BIN" tune \
    --out-dir "$DIR" \
    --time-budget "$BUDGET" \
    --machine "${SLURM_CLUSTER_NAME:-cluster}" \
    ${PROCS:+--procs "$PROCS"} --mapping "${MAPPING:-core}"
echo "rules: $DIR/rules (OMPI_MCA_coll_tuned_use_dynamic_rules=1 OMPI_MCA_coll_tuned_dynamic_rules_filename=$DIR/rules)"
