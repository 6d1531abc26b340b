#!/usr/bin/env bash
# The campaign behind data/local-2core.csv: 2-8 ranks on this 2-core
# machine (oversubscribed above 2), 1 B - 4 MiB, the six algorithms with
# segment sizes 0, 8 KiB, 64 KiB, each run by our implementation and by Open
# MPI (forced through MPI_T), plus the library default. Resumable: rerunning
# measures only what the CSV lacks.
#
#   bash experiments/campaign_local.sh [OUT.csv] [MINUTES_PER_JOB_SIZE]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-data/local-2core.csv}
minutes=${2:-5}
# The dev profile optimizes the timed path (this crate and rsmpi at
# opt-level 2, Cargo.toml) and builds in a minute instead of polars' release
# build of a quarter hour; MPI itself is the system library either way.
cargo build --quiet
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for p in 2 3 4 5 6 7 8; do
    mpirun -n "$p" --oversubscribe target/debug/collsel bench \
        --out "$out" --sizes 1:4M:x4 --segsizes 0,8K,64K --impl own,ompi \
        --algorithms default,linear,chain,pipeline,split_binary,binary,binomial \
        --max-seconds 1 --time-budget "${minutes}m" --machine local-2core
done
