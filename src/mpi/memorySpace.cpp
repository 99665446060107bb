// SPDX-License-Identifier: MIT
#include "fieldsync/mpi/memorySpace.hpp"

#include "fieldsync/core/logger.hpp"
#include "fieldsync/core/settings.hpp"

#include <mpi.h>
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

} // namespace fieldsync::mpi
