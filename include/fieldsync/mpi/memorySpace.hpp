// SPDX-License-Identifier: MIT
#pragma once

#include <Kokkos_Core.hpp>

namespace fieldsync::mpi
{

/** @brief How memory reaches MPI: Auto follows the rules below, Always forces host staging. */
enum class Staging
{
    Auto,  /**< direct when MPI can reach the memory, staged through the host otherwise */
    Always /**< always through a host staging buffer (tests the device path on host builds) */
};

/** @brief Whether the host can dereference memory of @p MemorySpace (Kokkos decides). */
template<typename MemorySpace>
inline constexpr bool hostAccessible =
    Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible;

/**
 * @brief Whether the MPI library accepts device pointers. FIELDSYNC_GPU_AWARE_MPI=0|1 decides
 * when set; otherwise the MPI library is asked at run time where it offers a query (Open MPI's
 * MPIX_Query_cuda_support), and the answer is no where it does not. Evaluated once.
 */
[[nodiscard]] bool gpuAwareMpi();

/** @brief Whether FIELDSYNC_FORCE_STAGING=1 forces staging everywhere. Read once. */
[[nodiscard]] bool stagingForcedByEnvironment();

/**
 * @brief The one rule for every operation on memory of @p MemorySpace: stage through the host
 * when asked to (@p staging or FIELDSYNC_FORCE_STAGING), or when MPI can reach neither the memory
 * from the host nor, lacking GPU-aware MPI, the device pointer.
 */
template<typename MemorySpace>
[[nodiscard]] bool useStaging(Staging staging = Staging::Auto)
{
    if (staging == Staging::Always || stagingForcedByEnvironment())
    {
        return true;
    }
    if constexpr (hostAccessible<MemorySpace>)
    {
        return false;
    }
    else
    {
        return !gpuAwareMpi();
    }
}

} // namespace fieldsync::mpi
