#!/usr/bin/env bash
# Replay of `plan` on measured data: does choosing the next points by the
# models' expected regret beat measuring random ones? (no MPI needed)
# Writes experiments/results/plan/replay.md; see plan_replay.py for the protocol.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
# A copy: rebuilding during the replay must not change the binary under it.
TMP=$(mktemp -d)
cp target/release/collsel "$TMP/"
BIN=$TMP/collsel
OUT=${OUT:-experiments/results/plan}
SEEDS=${SEEDS:-3}
mkdir -p "$OUT"
python3 experiments/plan_replay.py "$BIN" "$TMP" "$SEEDS" data/*.csv ../shared/data/*.csv \
  | tee "$OUT/replay.md"
