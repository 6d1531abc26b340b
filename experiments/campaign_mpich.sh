#!/usr/bin/env bash
# The campaign behind data/local-2core-mpich.csv: MPICH 5.0 (the `mpich`
# wheel) measuring its own algorithms of every collective the product
# knows (`--impl mpich`: each forced through MPI_T) beside its own choice
# (`default`), communicators of 2-6 ranks in one 6-rank job on this 2-core
# machine. Above 2 ranks the cores are oversubscribed and MPICH's progress
# engine spins (it has no yield setting in ch4): timings of an
# oversubscribed node, far noisier than Open MPI's. Resumable.
#
#   bash experiments/campaign_mpich.sh [OUT.csv] [MINUTES_PER_COLLECTIVE]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-data/local-2core-mpich.csv}
minutes=${2:-3}
v=$PWD/target/tmp/mpich-venv
if [ ! -x "$v/bin/mpicc" ]; then
  python3 -m venv "$v"
  "$v/bin/pip" install -q 'mpich==5.0.*'
fi
PATH=$v/bin:$PATH OMPI_NO_PKG_CONFIG=1 MPICH_NO_PKG_CONFIG=1 CARGO_TARGET_DIR=target/mpich \
  cargo build --quiet --bin collsel
for c in bcast reduce allreduce allgather alltoall; do
  "$v/bin/mpirun" -n 6 -env LD_LIBRARY_PATH "$v/lib" target/mpich/debug/collsel bench \
    --collective "$c" --impl mpich --procs 2,3,4,5,6 --sizes 4:1M:x8 \
    --max-seconds 0.3 --max-reps 50 --time-budget "${minutes}m" --machine local-2core \
    --out "$out"
done
