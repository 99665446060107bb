// SPDX-License-Identifier: MIT
#pragma once

#include "fieldsync/mpi/algorithm.hpp"
#include "fieldsync/mpi/matchId.hpp"
#include "fieldsync/mpi/memorySpace.hpp"

#include <type_traits>
#include <vector>

namespace fieldsync::mpi
{

namespace detail
{

/**
 * @brief Marks "no execution space given": a Kokkos::View is fenced on (and staged with) the
 * default instance of its own execution space; a pointer, std::span or std::vector is not fenced.
 */
struct ViewExecutionSpace
{
};

/**
 * @brief The type of CallOptions::dependsOn when no execution space is named: it holds nothing,
 * so `CallOptions<> { .dependsOn = {a} }` does not compile (name the instance that runs the call
 * with withExecutionSpace first).
 */
struct NoDependencies
{
};

/**
 * @brief The instances a device form waits for: a std::vector of instances of the call's own
 * execution space type (an instance of another type does not compile), NoDependencies without one.
 */
template<typename ExecutionSpace>
using DependenciesOf = std::conditional_t<
    std::is_same_v<ExecutionSpace, ViewExecutionSpace>,
    NoDependencies,
    std::vector<ExecutionSpace>>;

} // namespace detail

/**
 * @brief Per-call options of every collective, passed as the parameter after the communicator.
 *
 * `{.staging = Staging::Always}` forces the host-staging path for this call (as the environment
 * variable FIELDSYNC_FORCE_STAGING=1 does for all calls); withExecutionSpace(exec) names the
 * Kokkos execution space instance that wrote (or will read) the buffers. Only that instance is
 * fenced before the memory goes to MPI, and staging copies are enqueued on it. `.dependsOn =
 * {a, b}` (or withExecutionSpace(exec, {a, b})) adds instances of the same execution space type
 * that the call waits for before it reads its buffers: each is fenced, besides `exec`, and
 * nothing else is (doc/collectives.md, "Device dependencies and completion").
 * `{.algorithm = Algorithm::Ring}` runs the collective with one of fieldsync's own algorithms
 * instead of the MPI library's (doc/algorithms.md).
 *
 * `{.matchId = "residual U"}` (a name or an integer) matches the call with the calls of the same
 * id on the other ranks, whatever the order of the calls with other ids (doc/collectives.md,
 * "Calls matched by id"); calls without an id keep MPI's rule: every rank makes them in the same
 * order. The first call with an id on a communicator is collective over the communicator (it
 * makes the id's private duplicate): every rank makes its first call with each id at the same
 * point of its other collectives on that communicator. A blocking call with an id still waits
 * for the calls of its own id on the other ranks: it can run while calls with other ids are in
 * flight (started on the other ranks in another order), but it cannot wait for a call that the
 * other ranks start only after their own blocking call with another id returns.
 */
template<typename ExecutionSpace = detail::ViewExecutionSpace>
struct CallOptions
{
    Staging staging { Staging::Auto };         /**< Auto: direct where MPI can reach the memory */
    ExecutionSpace exec {};                    /**< instance to fence and to stage on */
    Algorithm algorithm { Algorithm::Native }; /**< Native: the MPI library's collective */
    MatchId matchId {};                        /**< none: matched by call order */
    // last, so that positional initialisers written before it keep their meaning
    detail::DependenciesOf<ExecutionSpace> dependsOn {}; /**< instances to wait for besides exec */
};

/** @brief Options naming the execution space instance @p exec (and optionally a staging mode). */
template<typename ExecutionSpace>
[[nodiscard]] CallOptions<ExecutionSpace>
withExecutionSpace(const ExecutionSpace& exec, Staging staging = Staging::Auto)
{
    return CallOptions<ExecutionSpace> { .staging = staging, .exec = exec };
}

/**
 * @brief Options naming the instance @p exec that runs the call and the instances @p dependsOn
 * (of the same type) whose earlier work it waits for before it reads its buffers.
 */
template<typename ExecutionSpace>
[[nodiscard]] CallOptions<ExecutionSpace> withExecutionSpace(
    const ExecutionSpace& exec,
    std::vector<ExecutionSpace> dependsOn,
    Staging staging = Staging::Auto
)
{
    return CallOptions<ExecutionSpace> { .staging = staging,
                                         .exec = exec,
                                         .dependsOn = std::move(dependsOn) };
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
