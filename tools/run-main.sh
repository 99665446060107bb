#!/usr/bin/env bash
# The main job: set-up, build, then run the finite-volume example solver on a rank per core
# (bound to it) with a moving load, twice: with rebalancing off and on (when the build has
# Zoltan), and print both time loops (each including every rebalance) and their ratio. Without
# arguments the load is --load-extra 32; arguments replace that and go to both runs (for example
# --vtk out/ or --steps 200). RUN_MAIN_RANKS sets the rank count (nproc); more ranks than cores
# run unbound.
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/setup.sh

cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)" --target fieldsync-heat
heat=build/release/examples/heat/fieldsync-heat
ranks=${RUN_MAIN_RANKS:-$(nproc)}
bind=()
if ((ranks <= $(nproc))); then
    bind=(--bind-to core)
fi
args=("$@")
if ((${#args[@]} == 0)); then
    args=(--load-extra 32)
fi
if ! grep -q "FIELDSYNC_WITH_ZOLTAN:BOOL=ON" build/release/CMakeCache.txt; then
    echo "run-main: this build has no Zoltan: one run, without rebalancing"
    exec mpiexec -n "$ranks" "${bind[@]}" "$heat" "${args[@]}"
fi
for arg in "${args[@]}"; do
    if [[ $arg == --rebalance ]]; then
        echo "run-main: runs with --rebalance and without it itself; leave it out" >&2
        exit 2
    fi
done

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "=== rebalancing off"
mpiexec -n "$ranks" "${bind[@]}" "$heat" "${args[@]}" | tee "$out/off.txt"
echo "=== rebalancing on (when the predicted gain exceeds the cost)"
mpiexec -n "$ranks" "${bind[@]}" "$heat" "${args[@]}" --rebalance | tee "$out/on.txt"

# "time loop: 2.345 s (slowest rank), 3 rebalances costing 0.123 s included"
loop() { sed -n 's/^time loop: \([0-9.]*\) s (slowest rank), \([0-9]*\) rebalances costing \([0-9.]*\) s.*/\1 \2 \3/p' "$1"; }
read -r off _ _ < <(loop "$out/off.txt")
read -r on count cost < <(loop "$out/on.txt")
echo "=== the main job on $ranks ranks (${args[*]})"
echo "time loop without rebalancing: $off s"
echo "time loop with rebalancing:    $on s ($count rebalances costing $cost s included)"
awk -v on="$on" -v off="$off" 'BEGIN { printf "ratio with / without: %.3f\n", on / off }'
