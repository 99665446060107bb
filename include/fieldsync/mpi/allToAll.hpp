// SPDX-License-Identifier: MIT
// All-to-all: allToAll and allToAllV, each blocking and non-blocking (the i-form returns a
// Request), on spans, vectors and views (doc/collectives.md; pointer forms in compat/).
#pragma once

#include "fieldsync/mpi/collectiveBuffer.hpp"

namespace fieldsync::mpi
{

namespace detail::ops
{

/** @brief allToAll and iAllToAll (MPI_Alltoall). */
[[nodiscard]] constexpr Operation allToAll() noexcept
{
    return { Kind::AllToAll, {} };
}

/** @brief allToAllV and iAllToAllV (MPI_Alltoallv). */
[[nodiscard]] constexpr Operation
allToAllV(std::span<const int> sendCounts, std::span<const int> recvCounts) noexcept
{
    return { Kind::AllToAllV, { .sendCounts = sendCounts, .recvCounts = recvCounts } };
}

} // namespace detail::ops

/** @brief Block r of @p send goes to rank r, block r of @p recv comes from rank r (MPI_Alltoall).
 */
template<typename S, typename R, typename E = detail::ViewExecutionSpace>
requires SendArgument<S> && CollectiveBuffer<R>
void allToAll(
    S&& send,
    R&& recv,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    detail::ops::allToAll().start<true>(send, recv, comm, options, where);
}

/** @brief Non-blocking allToAll: block r of @p send goes to rank r, block r of @p recv comes from
 * rank r (MPI_Alltoall). Returns the Request to complete. */
template<typename S, typename R, typename E = detail::ViewExecutionSpace>
requires SendArgument<S> && CollectiveBuffer<R>
[[nodiscard]] Request iAllToAll(
    S&& send,
    R&& recv,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    return detail::ops::allToAll().start<false>(send, recv, comm, options, where);
}

/** @brief As allToAll with per-rank counts, blocks packed in rank order (MPI_Alltoallv). */
template<typename S, typename R, typename E = detail::ViewExecutionSpace>
requires SendArgument<S> && CollectiveBuffer<R>
void allToAllV(
    S&& send,
    std::span<const int> sendCounts,
    R&& recv,
    std::span<const int> recvCounts,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    const auto operation = detail::ops::allToAllV(sendCounts, recvCounts);
    operation.start<true>(send, recv, comm, options, where);
}

/** @brief Non-blocking allToAllV: per-rank counts, blocks packed in rank order (MPI_Alltoallv).
 * Returns the Request to complete. */
template<typename S, typename R, typename E = detail::ViewExecutionSpace>
requires SendArgument<S> && CollectiveBuffer<R>
[[nodiscard]] Request iAllToAllV(
    S&& send,
    std::span<const int> sendCounts,
    R&& recv,
    std::span<const int> recvCounts,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    const auto operation = detail::ops::allToAllV(sendCounts, recvCounts);
    return operation.start<false>(send, recv, comm, options, where);
}

} // namespace fieldsync::mpi
