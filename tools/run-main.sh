#!/usr/bin/env bash
# The main job: set-up, build, then run the finite-volume example solver on 4 ranks.
# Extra arguments go to the solver (for example --vtk out/ or --steps 200).
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/setup.sh

cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)" --target fieldsync-heat
exec mpiexec -n 4 build/release/examples/heat/fieldsync-heat "$@"
