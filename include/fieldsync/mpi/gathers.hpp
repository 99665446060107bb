// SPDX-License-Identifier: MIT
// Gathers: allGather, allGatherV, gather and gatherV, each blocking and non-blocking (the i-form
// returns a Request), on spans, vectors and views (doc/collectives.md; pointer forms in compat/).
#pragma once

#include "fieldsync/mpi/collectiveBuffer.hpp"

namespace fieldsync::mpi
{

namespace detail::ops
{

/** @brief allGather and iAllGather (MPI_Allgather). */
[[nodiscard]] constexpr Operation allGather() noexcept
{
    return { Kind::AllGather, {} };
}

/** @brief allGatherV and iAllGatherV (MPI_Allgatherv). */
[[nodiscard]] constexpr Operation allGatherV(std::span<const int> recvCounts) noexcept
{
    return { Kind::AllGatherV, { .recvCounts = recvCounts } };
}

/** @brief gather and iGather (MPI_Gather). */
[[nodiscard]] constexpr Operation gather(int root) noexcept
{
    return { Kind::Gather, { .root = root } };
}

/** @brief gatherV and iGatherV (MPI_Gatherv). */
[[nodiscard]] constexpr Operation gatherV(std::span<const int> recvCounts, int root) noexcept
{
    return { Kind::GatherV, { .root = root, .recvCounts = recvCounts } };
}

} // namespace detail::ops

/** @brief Block r of @p recv (send.size() values) receives @p send of rank r, on every rank
 * (MPI_Allgather). In place: each rank's block is already in recv. */
template<typename S, typename R, typename E = detail::ViewExecutionSpace>
requires SendArgument<S> && CollectiveBuffer<R>
void allGather(
    S&& send,
    R&& recv,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    detail::ops::allGather().start<true>(send, recv, comm, options, where);
}

/** @brief Non-blocking allGather: block r of @p recv (send.size() values) receives @p send of rank
 * r, on every rank (MPI_Allgather). Returns the Request to complete. */
template<typename S, typename R, typename E = detail::ViewExecutionSpace>
requires SendArgument<S> && CollectiveBuffer<R>
[[nodiscard]] Request iAllGather(
    S&& send,
    R&& recv,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    return detail::ops::allGather().start<false>(send, recv, comm, options, where);
}

/** @brief As allGather with recvCounts[r] values from rank r, packed in rank order
 * (MPI_Allgatherv). */
template<typename S, typename R, typename E = detail::ViewExecutionSpace>
requires SendArgument<S> && CollectiveBuffer<R>
void allGatherV(
    S&& send,
    R&& recv,
    std::span<const int> recvCounts,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    detail::ops::allGatherV(recvCounts).start<true>(send, recv, comm, options, where);
}

/** @brief Non-blocking allGatherV: recvCounts[r] values from rank r, packed in rank order
 * (MPI_Allgatherv). Returns the Request to complete. */
template<typename S, typename R, typename E = detail::ViewExecutionSpace>
requires SendArgument<S> && CollectiveBuffer<R>
[[nodiscard]] Request iAllGatherV(
    S&& send,
    R&& recv,
    std::span<const int> recvCounts,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    return detail::ops::allGatherV(recvCounts).start<false>(send, recv, comm, options, where);
}

/** @brief Block r of @p recv on @p root receives @p send of rank r (MPI_Gather). In place: every
 * rank's block r of recv is its contribution. */
template<typename S, typename R, typename E = detail::ViewExecutionSpace>
requires SendArgument<S> && CollectiveBuffer<R>
void gather(
    S&& send,
    R&& recv,
    int root,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    detail::ops::gather(root).start<true>(send, recv, comm, options, where);
}

/** @brief Non-blocking gather: block r of @p recv on @p root receives @p send of rank r
 * (MPI_Gather). Returns the Request to complete. */
template<typename S, typename R, typename E = detail::ViewExecutionSpace>
requires SendArgument<S> && CollectiveBuffer<R>
[[nodiscard]] Request iGather(
    S&& send,
    R&& recv,
    int root,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    return detail::ops::gather(root).start<false>(send, recv, comm, options, where);
}

/** @brief As gather with recvCounts[r] values from rank r, packed in rank order (MPI_Gatherv);
 * recvCounts is read on root only unless in place. */
template<typename S, typename R, typename E = detail::ViewExecutionSpace>
requires SendArgument<S> && CollectiveBuffer<R>
void gatherV(
    S&& send,
    R&& recv,
    std::span<const int> recvCounts,
    int root,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    detail::ops::gatherV(recvCounts, root).start<true>(send, recv, comm, options, where);
}

/** @brief Non-blocking gatherV: recvCounts[r] values from rank r, packed in rank order
 * (MPI_Gatherv). Returns the Request to complete. */
template<typename S, typename R, typename E = detail::ViewExecutionSpace>
requires SendArgument<S> && CollectiveBuffer<R>
[[nodiscard]] Request iGatherV(
    S&& send,
    R&& recv,
    std::span<const int> recvCounts,
    int root,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    return detail::ops::gatherV(recvCounts, root).start<false>(send, recv, comm, options, where);
}

} // namespace fieldsync::mpi
