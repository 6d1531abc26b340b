#!/usr/bin/env bash
# Does a size measured as a sub-communicator (`bench --procs`) time like a
# separate job of that size? On a 2-core machine only the 2-rank size can
# be compared with every measuring rank on a core of its own: ROUNDS rounds
# (default 6), each a separate `mpirun -n SIZE` job (default 2) and a
# RANKS-rank job (default 4) measuring `--procs SIZE` (the first SIZE
# ranks; the others wait in the sleeping barrier), in alternating order.
# Both pin rank i to core i mod 2 (the measuring ranks on the same cores in
# both) and poll without yielding (`mpi_yield_when_idle 0`, YIELD=0; an
# oversubscribed job yields by default, which a job with a core per rank
# does not). SIZE=3 YIELD=1: three measuring ranks share two cores in both
# methods, so both must yield. Then experiments/bench_procs_ab.py.
# Run from the repository root (release build; as root the two
# OMPI_ALLOW_RUN_AS_ROOT variables are set here).
set -euo pipefail
[ -z "${BIN:-}" ] && cargo build --release --quiet
bin=${BIN:-target/release/collsel}
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
args=(--sizes 1K,64K,1M --algorithms default,binomial,pipeline --segsizes 0,8K
      --impl own,ompi --min-reps 20 --max-reps 400 --max-seconds 1)
size=${SIZE:-2}
pin=(--map-by core --bind-to core:overload-allowed --mca mpi_yield_when_idle "${YIELD:-0}")
sep() { mpirun -n "$size" --oversubscribe "${pin[@]}" "$bin" bench --out "$out/sep$1.csv" "${args[@]}" >/dev/null; }
one() { mpirun -n "${RANKS:-4}" --oversubscribe "${pin[@]}" "$bin" bench --out "$out/one$1.csv" --procs "$size" "${args[@]}" >/dev/null; }
for r in $(seq 1 "${ROUNDS:-6}"); do
  if (( r % 2 )); then sep "$r"; one "$r"; else one "$r"; sep "$r"; fi
  echo "round $r done" >&2
done
python3 experiments/bench_procs_ab.py "$out"
