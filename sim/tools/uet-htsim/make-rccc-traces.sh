#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Regenerates RCCC's oversubscription-controller traces (testbench/resources/uet-htsim/) from the UEC reference simulator:
# every OversubscribedCC decision of incast15 and perm16 under RCCC with the controller forced on, its inputs (the
# interval's packets, trims and ECN marks) and outputs (g, rate) at 17 significant digits.
# Usage: sim/tools/uet-htsim/make-rccc-traces.sh UET_HTSIM_CHECKOUT
#   UET_HTSIM_CHECKOUT: a clone of github.com/ultraethernet/uet-htsim at 40ccb0526bb6297eeb22ab33f9934fb35278dbaf,
#   built (cd htsim/sim && cmake -S . -B build && cmake --build build). Needs g++.
set -euo pipefail
ref=${1:?usage: $0 UET_HTSIM_CHECKOUT}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
commit=$(git -C "$ref" rev-parse HEAD)
[ "$commit" = 40ccb0526bb6297eeb22ab33f9934fb35278dbaf ] || echo "warning: uet-htsim at $commit, the committed trace is of 40ccb05" >&2
bin="$ref/htsim/sim/datacenter/htsim_uec"
[ -x "$bin" ] || { echo "no $bin: build uet-htsim first" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
g++ -O2 -shared -fPIC -o "$work/full_precision.so" "$here/full_precision.cpp"
out="$root/testbench/resources/uet-htsim"
run() { # name, htsim arguments
    local name=$1; shift
    local args="$* -receiver_cc_only -oversubscribed_cc -debug"
    (cd "$ref/htsim/sim/datacenter" && LD_PRELOAD="$work/full_precision.so" ./htsim_uec $args > "$work/log" 2>&1)
    {
        echo "# uet-htsim $commit, htsim/sim/datacenter: LD_PRELOAD=full_precision.so ./htsim_uec $args"
        echo "# extracted by: sim/tools/uet-htsim/make-rccc-traces.sh (the lines of oversubscribed_cc.cpp:87-88)"
        grep '^At .* oversubscribed cc ' "$work/log"
        grep '^New: ' "$work/log"
    } | gzip -9n > "$out/rccc-oversubscribed-cc-$name.txt.gz"
}
run incast15 -tm connection_matrices/incast.cm -end 3000
run perm16 -tm connection_matrices/perm_16n_16c_2MB.cm -end 1000 -paths 128
