#!/usr/bin/env bash
# A collsel campaign on a Slurm cluster: one job per allocation; submit
# it once per job size you care about, e.g.
#
#   sbatch --nodes=2 --ntasks-per-node=32 experiments/sbatch_campaign.sh
#   sbatch --nodes=4 --ntasks-per-node=32 experiments/sbatch_campaign.sh
#
# All jobs may append to the same CSV (each writes only its own job size;
# rows are flushed one by one). If a job hits its time limit, resubmit it:
# bench skips what the file already holds. Keep --time-budget below the
# Slurm limit so the job ends cleanly and says what is missing.
#
# PROCS="2:64:x2" measures those communicator sizes inside this one
# allocation instead (bench --procs: each on a sub-communicator, the other
# ranks sleeping; MAPPING=node deals a size's ranks over the nodes).
#SBATCH --job-name=collsel
#SBATCH --time=01:00:00
#SBATCH --exclusive
#SBATCH --output=collsel-%j.log
set -euo pipefail

OUT=${OUT:-$HOME/collsel/data/$(hostname -s | sed 's/[0-9]*$//')-campaign.csv}
BIN=${BIN:-$HOME/collsel/target/release/collsel}
mkdir -p "$(dirname "$OUT")"

# One rank per core; add --distribution=cyclic to measure the `node` mapping
# (bench detects the placement itself and records it in every row).
srun --cpu-bind=cores "$BIN" bench \
    --out "$OUT" \
    --sizes 1:4M:x2 \
    --algorithms default,linear,chain,pipeline,split_binary,binary,binomial,knomial \
    --segsizes 0,8K,64K \
    --impl ompi,own \
    --time-budget 55m \
    --machine "${SLURM_CLUSTER_NAME:-cluster}" \
    ${PROCS:+--procs "$PROCS" --mapping "${MAPPING:-core}"}
