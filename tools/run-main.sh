#!/usr/bin/env bash
# The main job: set-up, build, then run the finite-volume example solver on 4 ranks.
# Without arguments it runs with a moving load and rebalances when the predicted gain exceeds
# the cost (when the build has Zoltan); arguments replace those defaults and go to the solver (for example
# --vtk out/ or --steps 200).
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/setup.sh

cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)" --target fieldsync-heat
args=("$@")
if ((${#args[@]} == 0)) && grep -q "FIELDSYNC_WITH_ZOLTAN:BOOL=ON" build/release/CMakeCache.txt; then
    args=(--load-extra 8 --rebalance)
fi
exec mpiexec -n 4 build/release/examples/heat/fieldsync-heat "${args[@]}"
