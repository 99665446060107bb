// SPDX-License-Identifier: MIT
// The memory spaces the per-space tests run in, as Kokkos' own tests do: each test body is
// written once (TEMPLATE_LIST_TEST_CASE over MemorySpaces) and instantiated per space. Also the
// execution space each space's kernels run in, and the kernels the tests fill views with (free
// function templates: nvcc rejects a KOKKOS_LAMBDA inside a Catch2 test case body).
#pragma once

#include "fieldsync/core/settings.hpp"
#include "fieldsync/mpi/memorySpace.hpp"

#include <Kokkos_Core.hpp>

#include <array>
#include <cstdint>
#include <tuple>

namespace fieldsync_test
{

/** @brief HostSpace always; the CUDA spaces in a CUDA build. */
#ifdef KOKKOS_ENABLE_CUDA
using MemorySpaces = std::
    tuple<Kokkos::HostSpace, Kokkos::CudaSpace, Kokkos::CudaUVMSpace, Kokkos::CudaHostPinnedSpace>;
#else
using MemorySpaces = std::tuple<Kokkos::HostSpace>;
#endif

/** @brief The execution space the tests run kernels of @p MemorySpace in (host by default). */
template<typename MemorySpace>
struct ExecutionSpaceOf
{
    using type = Kokkos::DefaultHostExecutionSpace; /**< the host's */
};

#ifdef KOKKOS_ENABLE_CUDA
/** @brief Device memory: kernels on the GPU. */
template<>
struct ExecutionSpaceOf<Kokkos::CudaSpace>
{
    using type = Kokkos::Cuda; /**< the GPU */
};

/** @brief Managed memory: the GPU writes it, MPI reads it from the host. */
template<>
struct ExecutionSpaceOf<Kokkos::CudaUVMSpace>
{
    using type = Kokkos::Cuda; /**< the GPU */
};

/**
 * @brief Pinned host memory: also the GPU, not the host (which Kokkos names as its execution
 * space). A GPU code pins the memory its kernels write and MPI then reads, and that is the case
 * worth testing: the memory is host-accessible, so it goes to MPI directly, and the library must
 * fence the Cuda instance that wrote it first. With host kernels nothing would need that fence.
 */
template<>
struct ExecutionSpaceOf<Kokkos::CudaHostPinnedSpace>
{
    using type = Kokkos::Cuda; /**< the GPU */
};
#endif

/** @brief See ExecutionSpaceOf. */
template<typename MemorySpace>
using ExecutionSpaceFor = typename ExecutionSpaceOf<MemorySpace>::type;

/** @brief The device of the test views: their execution space is the one the tests use. */
template<typename MemorySpace>
using DeviceFor = Kokkos::Device<ExecutionSpaceFor<MemorySpace>, MemorySpace>;

/**
 * @brief Whether the tests of @p MemorySpace run in this process: not for memory the host cannot
 * reach (CudaSpace) when FIELDSYNC_GPU_AWARE_MPI=1 is set. That variable makes the library hand
 * such device pointers to MPI unstaged, and the MPI the tests run with (Debian's Open MPI and
 * MPICH) cannot read them: it would crash, not fail. Memory the host reaches (HostSpace,
 * CudaUVMSpace, CudaHostPinnedSpace) goes to MPI directly in every variant and runs in all.
 */
template<typename MemorySpace>
bool runsHere()
{
    return fieldsync::mpi::hostAccessible<MemorySpace> ||
           !fieldsync::envBool("FIELDSYNC_GPU_AWARE_MPI", false);
}

/** @brief In a test case over MemorySpaces: ends it with a warning where @p Space does not run
 * here (runsHere). */
#define FIELDSYNC_TEST_SKIP_UNLESS_RUNS_HERE(Space)                                                \
    if (!fieldsync_test::runsHere<Space>())                                                        \
    {                                                                                              \
        WARN(Space::name() << " skipped: FIELDSYNC_GPU_AWARE_MPI=1, MPI not CUDA-aware");          \
        return;                                                                                    \
    }

/** @brief Sets view(i) = f(i) for every i, enqueued on @p exec (not fenced). */
template<typename Exec, typename View, typename F>
requires(View::rank == 1) void fill(const Exec& exec, const View& view, const F f)
{
    Kokkos::parallel_for(
        "fieldsync_test::fill",
        Kokkos::RangePolicy<Exec>(exec, 0, static_cast<std::int64_t>(view.extent(0))),
        KOKKOS_LAMBDA(const std::int64_t i) { view(i) = f(i, 0); }
    );
}

/** @brief Sets view(i, c) = f(i, c) for every cell i and component c, on @p exec (not fenced). */
template<typename Exec, typename View, typename F>
requires(View::rank == 2) void fill(const Exec& exec, const View& view, const F f)
{
    const auto components = static_cast<int>(view.extent(1));
    Kokkos::parallel_for(
        "fieldsync_test::fill",
        Kokkos::RangePolicy<Exec>(exec, 0, static_cast<std::int64_t>(view.extent(0))),
        KOKKOS_LAMBDA(const std::int64_t i) {
            for (int c = 0; c < components; ++c)
            {
                view(i, c) = f(i, c);
            }
        }
    );
}

/** @brief The sum of a rank-1 view, computed on @p exec (a Kokkos reduction; complete on return).
 */
template<typename Exec, typename View>
double sumOf(const Exec& exec, const View& view)
{
    double sum { 0 };
    Kokkos::parallel_reduce(
        "fieldsync_test::sum",
        Kokkos::RangePolicy<Exec>(exec, 0, static_cast<std::int64_t>(view.extent(0))),
        KOKKOS_LAMBDA(const std::int64_t i, double& partial) { partial += view(i); },
        sum
    );
    return sum;
}

/** @brief @p steps steps of a 64-bit linear congruential generator from @p x (no closed form a
 * compiler would find: a kernel of it runs as long as @p steps says). */
KOKKOS_INLINE_FUNCTION std::uint64_t lcgSteps(std::uint64_t x, int steps)
{
    for (int k = 0; k < steps; ++k)
    {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    }
    return x;
}

/** @brief Sets view(i) = lcgSteps(i, steps) on @p exec (not fenced): a long kernel. */
template<typename Exec, typename View>
void busyKernel(const Exec& exec, const View& view, int steps)
{
    Kokkos::parallel_for(
        "fieldsync_test::busy",
        Kokkos::RangePolicy<Exec>(exec, 0, static_cast<std::int64_t>(view.extent(0))),
        KOKKOS_LAMBDA(const std::int64_t i) {
            view(i) = lcgSteps(static_cast<std::uint64_t>(i), steps);
        }
    );
}

/**
 * @brief Two instances of @p Exec: on CUDA two streams of their own
 * (Kokkos::Experimental::partition_space), elsewhere two handles of the default instance (a host
 * execution space runs each kernel to completion in the calling thread anyway).
 */
template<typename Exec>
std::array<Exec, 2> twoInstances()
{
#ifdef KOKKOS_ENABLE_CUDA
    if constexpr (std::is_same_v<Exec, Kokkos::Cuda>)
    {
        const auto parts = Kokkos::Experimental::partition_space(Exec(), 1, 1);
        return { parts[0], parts[1] };
    }
#endif
    return { Exec(), Exec() };
}

} // namespace fieldsync_test
