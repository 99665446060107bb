#!/usr/bin/env bash
# The whole test suite: set-up, then build and test against Open MPI (preset release), again
# with AddressSanitizer, UndefinedBehaviorSanitizer and check mode on (preset debug), and
# against MPICH with fault injection on for every test (preset mpich). Exits non-zero on any
# failure.
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/setup.sh

jobs=$(nproc)
for preset in release debug mpich; do
    echo "=== fieldsync: ${preset} ==="
    cmake --preset "${preset}"
    cmake --build --preset "${preset}" -j "${jobs}"
    ctest --preset "${preset}" -j "${jobs}"
done
