#!/usr/bin/env bash
# Training and evaluation at scale: a synthetic 183,150-row dataset (33
# candidates of every Open MPI algorithm family incl. knomial and
# scatter-allgather, chain fan-outs 2-8, 1-8,192 ranks, block and cyclic
# mapping, 1 B-16 MiB; times from simple latency-bandwidth formulas with 5%
# noise — a load test, not a model of any machine). Prints wall time and
# peak memory of `train` and `evaluate --split procs`.
# Run from the repository root: bash experiments/scale.sh (needs python3
# and GNU time; BIN=path/to/collsel uses an existing build).
# SIZE=1m: the 1,000,000-row variant of issue #21 (sizes also at 3·2^k,
# mappings core/socket/node, chain fan-outs 2,3,4,6,8, ppn up to 96, up
# to 256 nodes; 1,054,725 rows, 41 candidates); it also times loading
# alone (`data summary`). MAX_ROWS=N passes --max-rows N to train and
# evaluate (README: `MAX_ROWS=20000 SIZE=1m bash experiments/scale.sh`).
set -euo pipefail
if [ -z "${BIN:-}" ]; then
  cargo build --release --quiet
fi
bin=${BIN:-target/release/collsel}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
python3 - "$out/big.csv" "${SIZE:-183k}" <<'PY'
import csv, math, random, sys
random.seed(2)
big = sys.argv[2] == "1m"
algs = [("default", None, None), ("linear", None, None)]
for s in [0, 1024, 8192, 65536]:
    algs += [(a, s, None) for a in ["pipeline", "split_binary", "binary", "binomial"]]
    algs += [("chain", s, f) for f in ([2, 3, 4, 6, 8] if big else [2, 4, 8])]
algs += [("knomial", 0, 4), ("scatter_allgather", 0, None), ("scatter_allgather_ring", 0, None)]
sizes = [2**e for e in range(25)]
if big:
    sizes = sorted(sizes + [3 * 2**e for e in range(24)])
rows = []
for nodes in [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128] + ([192, 256] if big else []):
    for ppn in [1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 96] if big else [1, 2, 4, 8, 16, 32, 48, 64]:
        for mapping in ["core", "socket", "node"] if big else ["core", "node"]:
            p = nodes * ppn
            if p < 2:
                continue
            lg = math.log2(p)
            for m in sizes:
                for a, s, f in algs:
                    segments = max(1, m // (s or m))
                    base = {
                        "linear": p * 2 + m * p / 5000,
                        "chain": p / (f or 4) * 2 + m / 3000 * (1 + p / 400) + segments * 0.3,
                        "pipeline": p * 1.5 + m / 4000 + segments * 0.2,
                        "split_binary": 2 * lg + m / 2500 + segments * 0.1,
                        "binary": 2 * lg + m / 1500 + segments * 0.1,
                        "binomial": 1.5 * lg + m * lg / 5000 + segments * 0.05,
                        "knomial": 1.2 * lg + m * lg / 4000,
                        "scatter_allgather": 3 * lg + m / 1000,
                        "scatter_allgather_ring": p + m / 3000,
                        "default": 1.6 * lg + m / 2200,
                    }[a]
                    t = base * math.exp(random.gauss(0, 0.05)) + 0.5
                    rows.append(dict(algorithm=a, procs=p, nodes=nodes, ppn=ppn, mapping=mapping,
                                     msg_bytes=m, time_us=f"{t:.3f}",
                                     segsize_bytes="" if s is None else s,
                                     fanout="" if f is None else f))
with open(sys.argv[1], "w", newline="") as fh:
    w = csv.DictWriter(fh, fieldnames=list(rows[0]))
    w.writeheader()
    w.writerows(rows)
print(f"{len(rows)} rows, {len(algs)} candidates")
PY
if [ "${SIZE:-}" = 1m ]; then
  /usr/bin/time -f "load (data summary): %e s wall, %M KB peak RSS" "$bin" data summary "$out/big.csv" >/dev/null
fi
for verb in train evaluate; do
  if [ "$verb" = train ]; then args=(train "$out/big.csv" --out "$out/model"); \
  else args=(evaluate --train "$out/big.csv" --split procs --out "$out/report.md"); fi
  args+=(--max-rows "${MAX_ROWS:-0}")
  /usr/bin/time -f "$verb: %e s wall, %M KB peak RSS" "$bin" "${args[@]}" >/dev/null
done
