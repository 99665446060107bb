// SPDX-License-Identifier: MIT
#include "fieldsync/mpi/memorySpace.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/core/logger.hpp"
#include "fieldsync/core/settings.hpp"

#include <mpi.h>

#include <atomic>
#include <source_location>
#include <string>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif

namespace fieldsync::mpi
{

namespace
{
bool detectGpuAwareMpi()
{
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    return MPIX_Query_cuda_support() == 1;
#else
    return false;
#endif
}
} // namespace

bool gpuAwareMpi()
{
    static const bool value = []
    {
        const bool detected = detectGpuAwareMpi();
        const bool chosen = envBool("FIELDSYNC_GPU_AWARE_MPI", detected);
        logger().debug("GPU-aware MPI: detected {}, using {}", detected, chosen);
        return chosen;
    }();
    return value;
}

bool stagingForcedByEnvironment()
{
    static const bool value = envBool("FIELDSYNC_FORCE_STAGING", false);
    return value;
}

namespace
{
StagingMemory stagingMemoryFromEnvironment()
{
    const std::string value { envString("FIELDSYNC_STAGING_MEMORY", "pinned") };
    if (value == "pinned")
    {
        return StagingMemory::Pinned;
    }
    if (value == "pageable")
    {
        return StagingMemory::Pageable;
    }
    throw Error(
        "FIELDSYNC_STAGING_MEMORY=" + value + " is not pinned or pageable",
        std::source_location::current()
    );
}

// -1: not chosen yet (read the environment on first use); else a StagingMemory
std::atomic<int> chosenStaging { -1 };
} // namespace

StagingMemory stagingMemory()
{
    int chosen { chosenStaging.load(std::memory_order_relaxed) };
    if (chosen < 0)
    {
        int expected { -1 };
        chosen = static_cast<int>(stagingMemoryFromEnvironment());
        if (!chosenStaging.compare_exchange_strong(expected, chosen))
        {
            chosen = expected; // another thread chose first
        }
    }
    return static_cast<StagingMemory>(chosen);
}

void setStagingMemory(StagingMemory memory) noexcept
{
    chosenStaging.store(static_cast<int>(memory), std::memory_order_relaxed);
}

const detail::SpaceOps& detail::stagingSpaceOps()
{
#ifdef KOKKOS_ENABLE_CUDA
    if (stagingMemory() == StagingMemory::Pinned)
    {
        return spaceOps<Kokkos::CudaHostPinnedSpace>();
    }
#endif
    return spaceOps<Kokkos::HostSpace>();
}

} // namespace fieldsync::mpi
