// SPDX-License-Identifier: MIT
// Scatters: scatter and scatterV, each blocking and non-blocking (the i-form returns a Request),
// on spans, vectors and views (doc/collectives.md; pointer forms in compat/).
#pragma once

#include "fieldsync/mpi/collectiveBuffer.hpp"

namespace fieldsync::mpi
{

namespace detail::ops
{

/** @brief scatter and iScatter (MPI_Scatter). */
[[nodiscard]] constexpr Operation scatter(int root) noexcept
{
    return { Kind::Scatter, { .root = root } };
}

/** @brief scatterV and iScatterV (MPI_Scatterv). */
[[nodiscard]] constexpr Operation scatterV(std::span<const int> sendCounts, int root) noexcept
{
    return { Kind::ScatterV, { .root = root, .sendCounts = sendCounts } };
}

} // namespace detail::ops

/** @brief Rank r receives block r (recv.size() values) of @p send of @p root (MPI_Scatter). recv
 * may be inPlace: each rank's block r of send is its result. */
template<typename S, typename R, typename E = detail::ViewExecutionSpace>
requires CollectiveBuffer<S> && ReceiveArgument<R>
void scatter(
    S&& send,
    R&& recv,
    int root,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    detail::ops::scatter(root).start<true>(send, recv, comm, options, where);
}

/** @brief Non-blocking scatter: rank r receives block r (recv.size() values) of @p send of @p root
 * (MPI_Scatter). Returns the Request to complete. */
template<typename S, typename R, typename E = detail::ViewExecutionSpace>
requires CollectiveBuffer<S> && ReceiveArgument<R>
[[nodiscard]] Request iScatter(
    S&& send,
    R&& recv,
    int root,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    return detail::ops::scatter(root).start<false>(send, recv, comm, options, where);
}

/** @brief As scatter with sendCounts[r] values for rank r, packed in rank order (MPI_Scatterv);
 * sendCounts is read on root only unless in place. */
template<typename S, typename R, typename E = detail::ViewExecutionSpace>
requires CollectiveBuffer<S> && ReceiveArgument<R>
void scatterV(
    S&& send,
    std::span<const int> sendCounts,
    R&& recv,
    int root,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    detail::ops::scatterV(sendCounts, root).start<true>(send, recv, comm, options, where);
}

/** @brief Non-blocking scatterV: sendCounts[r] values for rank r, packed in rank order
 * (MPI_Scatterv). Returns the Request to complete. */
template<typename S, typename R, typename E = detail::ViewExecutionSpace>
requires CollectiveBuffer<S> && ReceiveArgument<R>
[[nodiscard]] Request iScatterV(
    S&& send,
    std::span<const int> sendCounts,
    R&& recv,
    int root,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    return detail::ops::scatterV(sendCounts, root).start<false>(send, recv, comm, options, where);
}

} // namespace fieldsync::mpi
