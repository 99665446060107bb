// SPDX-License-Identifier: MIT
// Scatters: scatter and scatterV, each blocking and non-blocking (the i-form returns a Request),
// on buffers and on host pointers (doc/collectives.md).
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
template<typename S, typename R, typename E = ViewExecutionSpace>
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
template<typename S, typename R, typename E = ViewExecutionSpace>
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
template<typename S, typename R, typename E = ViewExecutionSpace>
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
template<typename S, typename R, typename E = ViewExecutionSpace>
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

// Pointer forms: host pointers and int counts, turned into buffers by detail::host.

/** @brief scatter of @p count values per rank; @p send (count x size values) may be null off root.
 */
template<typename T, typename E = ViewExecutionSpace>
void scatter(
    const T* send,
    T* recv,
    int count,
    int root,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    scatter(
        detail::hostPerRank(send, count), detail::host(recv, count), root, comm, options, where
    );
}

/** @brief Non-blocking scatter of @p count values per rank; @p send (count x size values) may be
 * null off root. */
template<typename T, typename E = ViewExecutionSpace>
[[nodiscard]] Request iScatter(
    const T* send,
    T* recv,
    int count,
    int root,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    return iScatter(
        detail::hostPerRank(send, count), detail::host(recv, count), root, comm, options, where
    );
}

/** @brief scatterV; @p send (sum of sendCounts values) may be null off root. */
template<typename T, typename E = ViewExecutionSpace>
void scatterV(
    const T* send,
    std::span<const int> sendCounts,
    T* recv,
    int recvCount,
    int root,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    const auto sendBuffer = detail::host(send, detail::sum(sendCounts));
    scatterV(sendBuffer, sendCounts, detail::host(recv, recvCount), root, comm, options, where);
}

/** @brief Non-blocking scatterV; @p send (sum of sendCounts values) may be null off root. */
template<typename T, typename E = ViewExecutionSpace>
[[nodiscard]] Request iScatterV(
    const T* send,
    std::span<const int> sendCounts,
    T* recv,
    int recvCount,
    int root,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    const auto sendBuffer = detail::host(send, detail::sum(sendCounts));
    return iScatterV(
        sendBuffer, sendCounts, detail::host(recv, recvCount), root, comm, options, where
    );
}

} // namespace fieldsync::mpi
