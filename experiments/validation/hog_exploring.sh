#!/usr/bin/env bash
# tune's main job with two CPU-bound processes beside its first 25 s (its
# first pass on the 2-core VM), then what it validated for the 4 KiB
# broadcast and reduce, whether it took a second look, and whether the
# report says exploring met a slower state than validation.
# Usage: bash experiments/validation/hog_exploring.sh OUT_DIR [BIN]
set -uo pipefail
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../.."
out=$1
bin=${2:-target/release/collsel}
rm -rf "$out"
(yes > /dev/null & yes > /dev/null & sleep 25; kill %1 %2) &
mpirun -n 2 "$bin" tune --time-budget 150s --collectives all --out-dir "$out" > "$out.log" 2>&1
wait
grep -E "second look|converged|left unused|Exploring met" "$out.log"
grep -h "^bcast,2,4096,\|^reduce,2,4096," "$out/validation.csv"
