#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Wall time of `hwgen experiment uet-reference` next to the UEC reference simulator's, scenario by
# scenario, perm1024 included, both run here and now (issue 33). Outside `make test`: CI cannot
# build the reference.
# Usage: sim/tools/uet-htsim/bench-uet-reference.sh UET_HTSIM_CHECKOUT [RUNS]
#   UET_HTSIM_CHECKOUT: a clone of github.com/ultraethernet/uet-htsim (40ccb05), built
#   (cd htsim/sim && cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j2).
#   RUNS: runs of each scenario on both sides, the fastest counted (default 3).
# Ours: the time inside the JVM of the fastest run (wall_s of summary.csv; the first run pays the
# JIT's warm-up, printed too), without the JVM's start, on the parallel collector (a throughput
# run: G1's barriers and pauses cost a third more here). Theirs: the process's wall time.
set -euo pipefail
ref=${1:?usage: $0 UET_HTSIM_CHECKOUT [RUNS]}
runs=${2:-3}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
dc="$ref/htsim/sim/datacenter"
[ -x "$dc/htsim_uec" ] || { echo "no $dc/htsim_uec: build uet-htsim first" >&2; exit 1; }
jar=$(ls "$root"/build/maven/uehw-tools/uehw-tools-*.jar | head -1)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
perm="$dc/connection_matrices/perm_1024n_1024c_0u_2000000b.cm"
java -XX:+UseParallelGC -jar "$jar" experiment uet-reference --out "$out/cold" --perm1024 "$perm" --runs 1 > /dev/null
java -XX:+UseParallelGC -jar "$jar" experiment uet-reference --out "$out/warm" --perm1024 "$perm" --runs "$runs" > /dev/null
declare -A args=(
    [one]="-tm connection_matrices/one.cm -sender_cc_only -end 1000"
    [incast3]="-tm connection_matrices/incast_3-1_overlapped.tm -sender_cc_only -end 1000 -cwnd 50"
    [incast15]="-tm connection_matrices/incast.cm -sender_cc_only -end 3000"
    [perm16]="-tm connection_matrices/perm_16n_16c_2MB.cm -sender_cc_only -end 1000 -paths 128"
    [perm1024]="-tm connection_matrices/perm_1024n_1024c_0u_2000000b.cm -sender_cc_only -end 400 -paths 128"
)
wall() { # the column wall_s of a scenario's row
    awk -F, -v s="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "wall_s") c = i } $1 == s { print $c }' "$2"
}
printf "%-9s %12s %12s %14s %7s\n" scenario ours_warm_s ours_first_s reference_s ratio
for s in one incast3 incast15 perm16 perm1024; do
    best=""
    for ((i = 0; i < runs; i++)); do
        t0=$(date +%s.%N)
        (cd "$dc" && ./htsim_uec ${args[$s]} > /dev/null 2>&1)
        t=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.4f", b - a }')
        if [ -z "$best" ] || awk -v t="$t" -v b="$best" 'BEGIN { exit !(t < b) }'; then best=$t; fi
    done
    ours=$(wall "$s" "$out/warm/summary.csv")
    first=$(wall "$s" "$out/cold/summary.csv")
    printf "%-9s %12s %12s %14.3f %7.2f\n" "$s" "$ours" "$first" "$best" "$(awk -v o="$ours" -v r="$best" 'BEGIN { print o / r }')"
done
