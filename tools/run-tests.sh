#!/usr/bin/env bash
# The whole test suite: set-up, then build and test against Open MPI (preset release), and again
# against MPICH with AddressSanitizer, UndefinedBehaviorSanitizer, check mode and fault injection
# on for every test (preset debug). Exits non-zero on any failure. Two builds, not one per
# configuration: doc/notes/performance.md ("Build time") says what each costs.
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/setup.sh

jobs=$(nproc)
for preset in release debug; do
    echo "=== fieldsync: ${preset} ==="
    cmake --preset "${preset}"
    cmake --build --preset "${preset}" -j "${jobs}"
    ctest --preset "${preset}" -j "${jobs}"
done
