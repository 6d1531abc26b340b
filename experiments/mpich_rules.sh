#!/usr/bin/env bash
# Does MPICH accept and apply `predict --format mpich-json`? Installs the
# MPICH wheel in a virtual environment, compiles tests/mpi/bcast_timer.c with
# its mpicc, and times MPI_Bcast (payload checked by the program) with:
#   1. no file; 2. MPICH's own selection file (BASE); 3. a bcast-only file;
#   4. BASE with its bcast part replaced by a deliberately slow rule (pipelined
#      tree, 64-byte chunks) written by collsel's exporter, with and
#      without the variables that route bcast to MPICH's selection.
# Usage (repository root): BASE=path/to/maint/tuning/coll/mpir/generic.json \
#   bash experiments/mpich_rules.sh   (BIN=target/release/collsel)
set -euo pipefail
: "${BASE:?set BASE to the file maint/tuning/coll/mpir/generic.json of MPICH}"
bin=${BIN:-target/release/collsel}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m venv "$work/mpich"
"$work/mpich/bin/pip" install -q mpich
export PATH="$work/mpich/bin:$PATH"
mpichversion | head -1
mpicc -O2 -o "$work/timer" tests/mpi/bcast_timer.c

# A model whose only candidate is pipeline with 64-byte segments.
printf 'algorithm,procs,nodes,ppn,msg_bytes,time_us,segsize_bytes\n' > "$work/slow.csv"
for p in 2 4; do for m in 1024 65536 4194304; do
  printf 'pipeline,%s,1,%s,%s,%s,64\n' $p $p $m 100 >> "$work/slow.csv"
  printf 'pipeline,%s,1,%s,%s,%s,64\n' $p $p $m 101 >> "$work/slow.csv"
done; done
"$bin" train "$work/slow.csv" --out "$work/model" --learners knn 2>/dev/null
"$bin" predict --model "$work/model" --nodes 1 --procs 2 --learner knn \
  --format mpich-json --mpich-base "$BASE" --out "$work/slow.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(json.dumps({"collective=bcast": d["collective=bcast"]}))' \
  "$work/slow.json" > "$work/only_bcast.json"

run() { # label, then env assignments
  local label=$1; shift
  printf '%-44s ' "$label"
  (env "$@" timeout 300 mpirun -n 2 "$work/timer" 4194304 3 2>&1 || true) | tail -1
}
route=(MPIR_CVAR_DEVICE_COLLECTIVES=percoll MPIR_CVAR_BCAST_DEVICE_COLLECTIVE=0)
run "no file" "${route[@]}"
run "MPICH's own file" "${route[@]}" MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE="$BASE"
run "bcast-only file" "${route[@]}" MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE="$work/only_bcast.json"
run "spliced slow rule" "${route[@]}" MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE="$work/slow.json"
run "spliced slow rule, device collectives on" MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE="$work/slow.json"
