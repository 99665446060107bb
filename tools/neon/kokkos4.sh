#!/usr/bin/env bash
# fieldsync's Kokkos-ownership tests on a host-only Kokkos 4 (issue #32: a NeoN main runs cleanly
# on Kokkos 3.4, the default build's, AND on Kokkos 4, which aborts on a second initialize or
# finalize where 3.4 warns):
#   1. Kokkos 4.6.01 (Serial only) from a Kokkos git repository (KOKKOS_GIT, default the mirror
#      below; a bare repository is fine) into SCRATCH/kokkos4, once;
#   2. fieldsync against it (Kokkos_ROOT) in SCRATCH/build-k4: only the NeoN main
#      (kokkosNeonMain), the lazy start (kokkosLazyStart) and the compatibility suite
#      (test_compat, whose main is a NeoN test main);
#   3. their CTest tests on 1 to 4 ranks.
#
#   tools/neon/kokkos4.sh [SCRATCH]        # default /work/scratch-neon; never inside the repo
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
scratch=${1:-/work/scratch-neon}
kokkos_git=${KOKKOS_GIT:-/work/.mirror/kokkos+kokkos/repo}
version=4.6.01
jobs=${JOBS:-2}

mkdir -p "$scratch"
if [[ ! -f $scratch/kokkos4/lib/cmake/Kokkos/KokkosConfig.cmake ]]; then
    rm -rf "$scratch/kokkos-src"
    git --git-dir="$kokkos_git" archive --format=tar --prefix=kokkos-src/ "$version" |
        tar -x -C "$scratch"
    nice -n 10 cmake -S "$scratch/kokkos-src" -B "$scratch/kokkos-build" -G Ninja \
        -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_STANDARD=20 -DKokkos_ENABLE_SERIAL=ON \
        -DBUILD_SHARED_LIBS=ON -DKokkos_ENABLE_TESTS=OFF -DCMAKE_INSTALL_PREFIX="$scratch/kokkos4" \
        -DCMAKE_CXX_COMPILER_LAUNCHER=ccache
    nice -n 10 cmake --build "$scratch/kokkos-build" --target install -j "$jobs"
fi

nice -n 10 cmake -S "$root" -B "$scratch/build-k4" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DKokkos_ROOT="$scratch/kokkos4" -DFIELDSYNC_BUILD_TESTS=ON -DFIELDSYNC_BUILD_BENCHMARKS=OFF
nice -n 10 cmake --build "$scratch/build-k4" -j "$jobs" \
    --target kokkosNeonMain kokkosLazyStart test_compat
ctest --test-dir "$scratch/build-k4" --output-on-failure -j "$jobs" \
    -R '^(test_kokkos_neon_main|test_kokkos_lazy_start|test_compat)\.np[1-4]$'
