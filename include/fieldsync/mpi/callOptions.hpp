// SPDX-License-Identifier: MIT
#pragma once

#include "fieldsync/mpi/algorithm.hpp"
#include "fieldsync/mpi/memorySpace.hpp"

namespace fieldsync::mpi
{

/**
 * @brief Marks "no execution space given": a Kokkos::View is fenced on (and staged with) the
 * default instance of its own execution space; a pointer, std::span or std::vector is not fenced.
 */
struct ViewExecutionSpace
{
};

/**
 * @brief Per-call options of every collective, passed as the parameter after the communicator.
 *
 * `{.staging = Staging::Always}` forces the host-staging path for this call (as the environment
 * variable FIELDSYNC_FORCE_STAGING=1 does for all calls); withExecutionSpace(exec) names the
 * Kokkos execution space instance that wrote (or will read) the buffers. Only that instance is
 * fenced before the memory goes to MPI, and staging copies are enqueued on it.
 * `{.algorithm = Algorithm::Ring}` runs the collective with one of fieldsync's own algorithms
 * instead of the MPI library's (doc/algorithms.md).
 */
template<typename ExecutionSpace = ViewExecutionSpace>
struct CallOptions
{
    Staging staging { Staging::Auto };         /**< Auto: direct where MPI can reach the memory */
    ExecutionSpace exec {};                    /**< instance to fence and to stage on */
    Algorithm algorithm { Algorithm::Native }; /**< Native: the MPI library's collective */
};

/** @brief Options naming the execution space instance @p exec (and optionally a staging mode). */
template<typename ExecutionSpace>
[[nodiscard]] CallOptions<ExecutionSpace>
withExecutionSpace(const ExecutionSpace& exec, Staging staging = Staging::Auto)
{
    return CallOptions<ExecutionSpace> { staging, exec, Algorithm::Native };
}

/**
 * @brief Stands for MPI_IN_PLACE in the send position (or, for scatter/scatterV, the receive
 * position) of a collective; see doc/collectives.md for what each operation reads and writes.
 */
struct InPlace
{
};

/** @brief The in-place marker: `allGather(inPlace, recv, comm)`. */
inline constexpr InPlace inPlace {};

} // namespace fieldsync::mpi
