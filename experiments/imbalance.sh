#!/usr/bin/env bash
# Issue 7's experiment, after Patarasuk & Yuan's Figures 7 and 9: 8 ranks on
# this machine, 1 MiB, imbalance factor X in {0, 1, 2, 4, 8, 16} (and 64,
# where delays dwarf the broadcast itself); linear,
# binomial, pipeline (each ours over point-to-point and Open MPI's, forced),
# arrival (ours), unsegmented and segments of 8 KiB and 64 KiB where they
# apply, and Open MPI's default.
# Two arrival patterns: uniform delays in [0, X·T(m)], and 20% of the
# non-root ranks late by X·T(m). Recorded: mean per-rank time from own
# arrival to own completion (time_us) and the slowest rank's (time_max_us),
# each point at least 40 random arrival patterns.
# Then the table and plots (`data arrival`), and a model trained on the
# measurements predicting for an imbalanced job (`predict --imbalance`).
# Resumable: rerunning measures only what the CSVs lack.
#
#   bash experiments/imbalance.sh
set -euo pipefail
cd "$(dirname "$0")/.."
out=experiments/results/imbalance
mkdir -p "$out"
cargo build --quiet
bin=target/debug/collsel
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
reps=(--min-reps 40 --max-reps 400 --target-ci 0.03 --max-seconds 4 --machine local-2core)
# 8 ranks is the experiment; 4 ranks gives the model a second job size.
for ranks in 8 4; do
    for pattern in uniform late; do
        late=()
        [ "$pattern" = late ] && late=(--late-fraction 0.2)
        common=(--out "$out/$pattern-$ranks.csv" --sizes 1M --imbalance 0,1,2,4,8,16,64 "${late[@]}" "${reps[@]}")
        # One job for all candidates: they share one measured T(m).
        mpirun -n "$ranks" --oversubscribe "$bin" bench "${common[@]}" --impl own,ompi \
            --algorithms default,linear,binomial,pipeline,arrival --segsizes 0,8K,64K
    done
done

# Table and plots.
"$bin" data arrival "$out"/{uniform,late}-8.csv --plots "$out"/plots > "$out"/table.md

# Imbalance as a model feature: selectors trained on 4 ranks choose for 8.
"$bin" evaluate --train "$out"/{uniform,late}-4.csv --test "$out"/{uniform,late}-8.csv \
    > "$out"/evaluate.md
# predict for 8 ranks from a model of both job sizes (not kept: retrain it).
model=$(mktemp -d)/model
"$bin" train "$out"/{uniform,late}-{4,8}.csv --out "$model"
for learner in auto knn gbm; do
    for x in 0 4 16 64; do
        "$bin" predict --model "$model" --nodes 1 --ppn 8 --sizes 1M --learner "$learner" \
            --imbalance "$x"
        "$bin" predict --model "$model" --nodes 1 --ppn 8 --sizes 1M --learner "$learner" \
            --imbalance "$x" --late-fraction 0.2
    done
done > "$out"/predict.txt
