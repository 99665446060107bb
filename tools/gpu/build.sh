#!/usr/bin/env bash
# Builds everything the GPU machine runs, here (nvcc compiles without a GPU), into .gpu/ (ignored
# by git), and packs it into .gpu/carry.tar.xz for the device tool's `carry`:
#   1. Kokkos 4.6.01 with CUDA for Hopper (sm_90) and Serial, patched for CUDA 13
#      (tools/gpu/kokkos-4.6.01-cuda13.patch), installed in .gpu/kokkos;
#   2. fieldsync against it (.gpu/build, MPICH): the tests that run per memory space, the heat
#      solver, gpu_bench;
#   3. the host (CPU) programs of the scaling runs: the `mpich` preset with the benchmarks on, in
#      .gpu/host (the preset itself builds no benchmarks);
#   4. an MPI runtime: Debian's MPICH packages unpacked with dpkg -x (the GPU machine has none);
#   5. a CPU reference of the heat solver's final field, to compare the GPU runs with bitwise.
# Then tools/gpu/device-run.sh runs it all on the GPU machine (doc/gpu.md).
#
#   tools/gpu/build.sh                 # everything (15 to 40 min on 2 cores from cold)
#   tools/gpu/build.sh pack            # one step: kokkos, cuda, host or pack
#   KOKKOS_SRC=/path/to/kokkos.git tools/gpu/build.sh   # a local Kokkos clone instead of GitHub
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
gpu=$root/.gpu
kokkos_version=4.6.01
jobs=${JOBS:-$(nproc)}
export PATH=/usr/local/cuda/bin:$PATH
export NVCC_WRAPPER_DEFAULT_ARCH=sm_90 # nvcc 13 has no sm_70, nvcc_wrapper's default
mkdir -p "$gpu"

# the CUDA build's programs, and the host programs of the CPU scaling runs
# (CUDA_TARGETS / HOST_TARGETS, space-separated, build and pack fewer: a short call's programs)
cuda_targets=(test_collectives test_halo_communicator test_halo_exchange_check test_halo_pack_kernels test_heat test_mpi_memory_spaces
    test_halo_memory_spaces test_halo_ghost_list test_halo_exchange_context test_reduction_batch
    test_compat kokkosNeonMain kokkosLazyStart fieldsync-heat gpu_bench)
host_targets=(fieldsync-heat halo_bench algorithms_bench hierarchy_bench setup_bench backend_bench)
[[ -z ${CUDA_TARGETS:-} ]] || read -r -a cuda_targets <<<"$CUDA_TARGETS"
[[ -z ${HOST_TARGETS:-} ]] || read -r -a host_targets <<<"$HOST_TARGETS"

# --- 1. Kokkos ---------------------------------------------------------------------------------
step_kokkos() {
if [[ ! -f $gpu/kokkos/lib/cmake/Kokkos/KokkosConfig.cmake ]]; then
    if [[ ! -d $gpu/kokkos-src ]]; then
        if [[ -n ${KOKKOS_SRC:-} ]]; then
            git -C "$KOKKOS_SRC" archive --format=tar --prefix=kokkos-src/ "$kokkos_version" |
                tar -x -C "$gpu"
        else
            git clone --quiet --depth 1 --branch "$kokkos_version" \
                https://github.com/kokkos/kokkos.git "$gpu/kokkos-src"
        fi
        patch -d "$gpu/kokkos-src" -p1 <"$root/tools/gpu/kokkos-$kokkos_version-cuda13.patch"
    fi
    cmake -S "$gpu/kokkos-src" -B "$gpu/kokkos-build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_CXX_COMPILER="$gpu/kokkos-src/bin/nvcc_wrapper" -DCMAKE_CXX_STANDARD=20 \
        -DKokkos_ENABLE_CUDA=ON -DKokkos_ENABLE_SERIAL=ON -DKokkos_ARCH_HOPPER90=ON \
        -DKokkos_ENABLE_CUDA_LAMBDA=ON -DBUILD_SHARED_LIBS=ON -DKokkos_ENABLE_TESTS=OFF \
        -DCMAKE_INSTALL_PREFIX="$gpu/kokkos" -DCMAKE_CXX_COMPILER_LAUNCHER=ccache
    cmake --build "$gpu/kokkos-build" --target install -j "$jobs"
fi
}

# --- 2. fieldsync with CUDA ----------------------------------------------------------------------
step_cuda() {
if [[ ! -f $gpu/build/build.ninja ]]; then
    cmake -S "$root" -B "$gpu/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DKokkos_ROOT="$gpu/kokkos" -DCMAKE_CXX_COMPILER="$gpu/kokkos/bin/nvcc_wrapper" \
        -DMPI_C_COMPILER=/usr/bin/mpicc.mpich -DMPI_CXX_COMPILER=/usr/bin/mpicxx.mpich \
        -DMPIEXEC_EXECUTABLE=/usr/bin/mpiexec.mpich -DFIELDSYNC_WITH_PTSCOTCH=OFF
fi
cmake --build "$gpu/build" -j "$jobs" --target "${cuda_targets[@]}"
}

# --- 3. host programs (MPICH, the runtime carried) ------------------------------------------------
step_host() {
(cd "$root" && cmake --preset mpich -B "$gpu/host" -DFIELDSYNC_BUILD_BENCHMARKS=ON >/dev/null &&
    cmake --build "$gpu/host" -j "$jobs" --target "${host_targets[@]}")
}

# --- 4. MPICH runtime from Debian's packages -------------------------------------------------------
step_pack() {
stage=$gpu/stage
rm -rf "$stage"
mkdir -p "$stage/cuda" "$stage/host" "$stage/lib" "$stage/mpi" "$gpu/debs"
(cd "$gpu/debs" && apt-get download mpich libmpich12 libhwloc15 libucx0 libnuma1 libslurm38 \
    2>/dev/null)
for deb in "$gpu"/debs/*.deb; do
    dpkg -x "$deb" "$stage/mpi"
done

# --- 5. programs and the libraries they need that the GPU machine may lack -------------------------
find_target() { find "$1" -type f -name "$2" -perm -u+x | head -n 1; }
for t in "${cuda_targets[@]}"; do
    exe=$(find_target "$gpu/build" "$t")
    if [[ -z $exe ]]; then
        echo "build.sh: $t is not built, not packed" >&2
        continue
    fi
    cp "$exe" "$stage/cuda/"
done
for t in "${host_targets[@]}"; do
    exe=$(find_target "$gpu/host" "$t" 2>/dev/null || true)
    if [[ -z $exe ]]; then
        echo "build.sh: host program $t is not built, not packed" >&2
        continue
    fi
    cp "$exe" "$stage/host/"
done
# everything ldd names (for our programs and the unpacked MPI's) except the C library, the C++
# runtime (newer there), the driver, and what the unpacked packages hold
for exe in "$stage"/cuda/* "$stage"/host/* "$stage"/mpi/usr/bin/* \
    "$stage"/mpi/usr/lib/x86_64-linux-gnu/*.so*; do
    ldd "$exe" 2>/dev/null | awk '/=> \// {print $3}' || true # scripts are no ELF
done | sort -u | while read -r lib; do
    name=$(basename "$lib")
    case $name in
    libc.so* | libm.so* | libdl.so* | libpthread.so* | librt.so* | libresolv.so* | \
        libgcc_s.so* | libstdc++.so* | libcuda.so*) ;;
    *) [[ -e $stage/mpi/usr/lib/x86_64-linux-gnu/$name ]] || cp -L "$lib" "$stage/lib/" ;;
    esac
done

# the Kokkos timer tool (tools/gpu/kokkosTimer.cpp): plain C interface, no Kokkos needed
g++ -O2 -shared -fPIC -o "$stage/lib/libfieldsync-timer.so" "$root/tools/gpu/kokkosTimer.cpp"

# --- 6. the CPU reference of the heat solver (2 ranks here, bitwise equal to serial) --------------
# (the host build's solver, or the release preset's with Open MPI when no host step ran: the
# result does not depend on the MPI)
if [[ -x $gpu/host/examples/heat/fieldsync-heat ]]; then
    mpiexec.mpich -n 2 "$gpu/host/examples/heat/fieldsync-heat" --steps 1000 \
        --save "$stage/heat-reference.bin" >"$gpu/heat-reference.log"
else
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpiexec -n 2 \
        "$root/build/release/examples/heat/fieldsync-heat" --steps 1000 \
        --save "$stage/heat-reference.bin" >"$gpu/heat-reference.log"
fi
tail -n 2 "$gpu/heat-reference.log"

tar -C "$stage" -cJf "$gpu/carry.tar.xz" .
echo "packed $(du -h "$gpu/carry.tar.xz" | cut -f1) into .gpu/carry.tar.xz"
}

steps=("$@")
((${#steps[@]})) || steps=(kokkos cuda host pack)
for step in "${steps[@]}"; do
    "step_$step"
done
