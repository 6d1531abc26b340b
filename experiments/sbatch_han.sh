#!/usr/bin/env bash
# Open MPI 5 across nodes on a real cluster: what serves MPI_Bcast (coll/han),
# what `bench` times, and whether the exported files reach the broadcast.
# Needs 2+ nodes, Open MPI 5 (its mpirun/srun and mpicc on PATH) and
# collsel built against it (the mpi crate finds the library through
# mpicc or pkg-config at build time: `cargo build --release` with Open MPI
# 5's bin first on PATH), e.g.
#
#   sbatch --nodes=2 --ntasks-per-node=16 experiments/sbatch_han.sh
#
# What a user should see in the log (the numbers are the cluster's):
#  1. "HAN on" and "HAN off" (`--mca coll ^han`) times of plain MPI_Bcast
#     differ where HAN and tuned's own decision differ; with
#     coll_base_verbose, "han" is selected on MPI_COMM_WORLD.
#  2. In $DIR/data.csv, the rows of forced algorithms are the same whether
#     HAN is on or off (bench times them on a communicator that prefers
#     tuned); only `default` moves with HAN.
#  3. "slow rule" with both exported files is clearly slower than "HAN file
#     alone" (the deliberately slow tuned rule reaches the job's
#     communicator), and "default decision" equals "HAN on" (HAN kept).
#  4. Every run says min_us, none bad_payload (each broadcast is verified).
#SBATCH --job-name=collsel-han
#SBATCH --time=00:30:00
#SBATCH --exclusive
#SBATCH --output=collsel-han-%j.log
set -euo pipefail

DIR=${DIR:-$HOME/collsel/han-check-${SLURM_JOB_ID:-local}}
BIN=${BIN:-$HOME/collsel/target/release/collsel}
SRC=${SRC:-$HOME/collsel}
mkdir -p "$DIR"
mpicc -O2 -o "$DIR/bcast_timer" "$SRC/tests/mpi/bcast_timer.c"
# The timing program under the environment assignments given.
timer() { env "$@" srun "$DIR/bcast_timer" 4194304 10 | grep -E "min_us|bad_payload|bcast_error"; }

echo "== 1. plain MPI_Bcast of 4 MiB"
echo "HAN on:  $(timer)"
echo "HAN off: $(timer OMPI_MCA_coll=^han)"

echo "== 2. bench, HAN on and off (forced rows must agree)"
for han in on off; do
  extra=()
  [ "$han" = off ] && extra=(OMPI_MCA_coll=^han)
  env "${extra[@]}" srun "$BIN" bench --out "$DIR/data-han-$han.csv" \
    --sizes 1K,64K,4M --algorithms default,binomial,pipeline,binary --segsizes 0,64K --impl ompi \
    --min-reps 10 --time-budget 5m
  cut -d, -f1,2,3,6,7,12 "$DIR/data-han-$han.csv"
done

echo "== 3. exported files: a deliberately slow decision, and a default one"
nodes=${SLURM_JOB_NUM_NODES:-2}
ppn=${SLURM_NTASKS_PER_NODE:-2}
for winner in pipeline default; do
  csv="$DIR/$winner.csv"
  echo "algorithm,procs,nodes,ppn,msg_bytes,time_us,segsize_bytes" > "$csv"
  # Jobs of 1, 2, 4, ... ranks per node over all the nodes: enough sizes
  # for train's cross-validation.
  for ((k = 1; k <= ppn; k *= 2)); do
    p=$((nodes * k))
    for e in 0 2 4 6 8 10 12 14 16 18 20 22; do
      m=$((1 << e))
      if [ "$winner" = default ]; then d=1; s=2; else d=2; s=1; fi
      echo "default,$p,$nodes,$k,$m,$(echo "$d * (1 + $m / 1000)" | bc -l)," >> "$csv"
      echo "pipeline,$p,$nodes,$k,$m,$(echo "$s * (1 + $m / 1000)" | bc -l),64" >> "$csv"
    done
  done
  "$BIN" train "$csv" --out "$DIR/model-$winner" --learners linear > /dev/null
  for f in ompi-rules ompi-han; do
    "$BIN" predict --model "$DIR/model-$winner" --nodes "$nodes" --ppn "$ppn" --format "$f" --out "$DIR/$winner.$f"
  done
done
han_file() { echo OMPI_MCA_coll_han_use_dynamic_file_rules=1 OMPI_MCA_coll_han_dynamic_rules_filename="$DIR/$1.ompi-han"; }
tuned_file() { echo OMPI_MCA_coll_tuned_use_dynamic_rules=1 OMPI_MCA_coll_tuned_dynamic_rules_filename="$DIR/$1.ompi-rules"; }
echo "HAN file alone:   $(timer $(han_file pipeline))"
echo "slow rule:        $(timer $(han_file pipeline) $(tuned_file pipeline))"
echo "default decision: $(timer $(han_file default) $(tuned_file default))"
