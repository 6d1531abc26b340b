#!/usr/bin/env bash
# Fidelity of our re-implementations: for every (procs, size, algorithm,
# segment size, fan-out) measured by both, the ratio own / Open MPI time, and
# per algorithm its median (goal <= 1.15), quartiles and count.
#
#   bash experiments/fidelity.sh [data/local-2core.csv]  > experiments/fidelity.md
set -euo pipefail
csv=${1:-data/local-2core.csv}
# Columns (bench's header): 1 algorithm, 2 procs, 6 msg_bytes, 7 time_us,
# 12 segsize_bytes, 13 fanout, 14 impl.
ratios=$(awk -F, 'NR > 1 && $1 != "default" {
        key = $1 FS $2 FS $6 FS ($12 == "" ? "-" : $12) FS $13
        if ($14 == "own") own[key] = $7; else lib[key] = $7
    }
    END { for (k in own) if (k in lib) { split(k, f, FS); print f[1], f[4], own[k] / lib[k] } }' "$csv")

summary() { # reads "group ratio" lines
    sort -k1,1 -k2,2g | awk '
        function flush() { if (n) printf "| %s | %d | %.3f | %.3f | %.3f |\n", g, n, v[int((n+3)/4)], v[int((n+1)/2)], v[int((3*n+3)/4)] }
        $1 != g { flush(); g = $1; n = 0 }
        { v[++n] = $2 }
        END { flush() }'
}

echo "Own / Open MPI time ratio, same algorithm, segment size and fan-out, measured side by side ($csv)."
echo
echo "| algorithm | pairs | lower quartile | median | upper quartile |"
echo "|---|---|---|---|---|"
echo "$ratios" | awk '{ print $1, $3 }' | summary
echo
echo "| algorithm / segment size | pairs | lower quartile | median | upper quartile |"
echo "|---|---|---|---|---|"
echo "$ratios" | awk '{ print $1 "/" $2, $3 }' | summary
