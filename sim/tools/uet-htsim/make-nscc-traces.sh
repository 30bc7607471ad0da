#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Regenerates the NSCC replay traces (testbench/resources/uet-htsim/) from the UEC reference simulator.
# Usage: sim/tools/uet-htsim/make-nscc-traces.sh UET_HTSIM_CHECKOUT
#   UET_HTSIM_CHECKOUT: a clone of github.com/ultraethernet/uet-htsim at 40ccb0526bb6297eeb22ab33f9934fb35278dbaf,
#   built (cd htsim/sim && cmake -S . -B build && cmake --build build). Needs g++ and the hwgen jar (make cli).
set -euo pipefail
ref=${1:?usage: $0 UET_HTSIM_CHECKOUT}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
commit=$(git -C "$ref" rev-parse HEAD)
[ "$commit" = 40ccb0526bb6297eeb22ab33f9934fb35278dbaf ] || echo "warning: uet-htsim at $commit, the committed traces are of 40ccb05" >&2
bin="$ref/htsim/sim/datacenter/htsim_uec"
[ -x "$bin" ] || { echo "no $bin: build uet-htsim first" >&2; exit 1; }
jar=$(ls "$root"/build/maven/uehw-tools/uehw-tools-*.jar | head -1)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
g++ -O2 -shared -fPIC -o "$work/full_precision.so" "$here/full_precision.cpp"
out="$root/testbench/resources/uet-htsim"
mkdir -p "$out"
run() { # name, speed (Mb/s), htsim arguments
    local name=$1 speed=$2; shift 2
    local args="$* -linkspeed $speed -debug"
    (cd "$ref/htsim/sim/datacenter" && LD_PRELOAD="$work/full_precision.so" ./htsim_uec $args > "$work/$name.log" 2>&1)
    java -jar "$jar" uet-trace --log "$work/$name.log" --out "$out/nscc-$name.csv.gz" \
        --provenance "uet-htsim $commit, htsim/sim/datacenter: LD_PRELOAD=full_precision.so ./htsim_uec $args" \
        --provenance "extracted by: sim/tools/uet-htsim/make-nscc-traces.sh (hwgen uet-trace)"
}
for g in 100 800; do
    run one-${g}g ${g}000 -tm connection_matrices/one.cm -sender_cc_only -end 1000
    run incast3-${g}g ${g}000 -tm connection_matrices/incast_3-1_overlapped.tm -sender_cc_only -end 1000 -cwnd 50
    run incast15-${g}g ${g}000 -tm connection_matrices/incast.cm -sender_cc_only -end 3000
done
# The raw log's head, for the extraction's own test (NsccReplayTest.theDebugLogReadsIntoTheCommittedTrace).
head -6000 "$work/incast3-100g.log" | gzip -9n > "$out/debug-log-incast3-100g-head.txt.gz"
