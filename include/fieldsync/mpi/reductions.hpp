// SPDX-License-Identifier: MIT
// Reductions: allReduce, reduce and reduceScatter, each blocking and non-blocking (the i-form
// returns a Request), on spans, vectors and views (doc/collectives.md; pointer forms in compat/).
#pragma once

#include "fieldsync/mpi/collectiveBuffer.hpp"

namespace fieldsync::mpi
{

namespace detail::ops
{

/** @brief allReduce and iAllReduce (MPI_Allreduce). */
[[nodiscard]] constexpr Operation allReduce(ReduceOp op) noexcept
{
    return { Kind::AllReduce, { .op = op } };
}

/** @brief reduce and iReduce (MPI_Reduce). */
[[nodiscard]] constexpr Operation reduce(ReduceOp op, int root) noexcept
{
    return { Kind::Reduce, { .op = op, .root = root } };
}

/** @brief reduceScatter and iReduceScatter in equal blocks (MPI_Reduce_scatter_block). */
[[nodiscard]] constexpr Operation reduceScatter(ReduceOp op) noexcept
{
    return { Kind::ReduceScatterBlock, { .op = op } };
}

/** @brief reduceScatter and iReduceScatter with a count per rank (MPI_Reduce_scatter). */
[[nodiscard]] constexpr Operation
reduceScatter(std::span<const int> recvCounts, ReduceOp op) noexcept
{
    return { Kind::ReduceScatter, { .op = op, .recvCounts = recvCounts } };
}

} // namespace detail::ops

/** @brief Combines @p send of every rank with @p op into @p recv of every rank (MPI_Allreduce).
 * In place is the one-buffer form, allReduce(data, op, comm). */
template<typename S, typename R, typename E = detail::ViewExecutionSpace>
requires CollectiveBuffer<S> && CollectiveBuffer<R>
void allReduce(
    S&& send,
    R&& recv,
    ReduceOp op,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    detail::ops::allReduce(op).start<true>(send, recv, comm, options, where);
}

/** @brief Non-blocking allReduce: combines @p send of every rank with @p op into @p recv of every
 * rank (MPI_Allreduce). In place is iAllReduce(data, op, comm). Returns the Request to complete.
 */
template<typename S, typename R, typename E = detail::ViewExecutionSpace>
requires CollectiveBuffer<S> && CollectiveBuffer<R>
[[nodiscard]] Request iAllReduce(
    S&& send,
    R&& recv,
    ReduceOp op,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    return detail::ops::allReduce(op).start<false>(send, recv, comm, options, where);
}

/** @brief In place: combines @p data of every rank with @p op into @p data of every rank. */
template<typename B, typename E = detail::ViewExecutionSpace>
requires CollectiveBuffer<B>
void allReduce(
    B&& data,
    ReduceOp op,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    detail::ops::allReduce(op).start<true>(inPlace, data, comm, options, where);
}

/** @brief Non-blocking allReduce: in place: combines @p data of every rank with @p op into @p data
 * of every rank. Returns the Request to complete. */
template<typename B, typename E = detail::ViewExecutionSpace>
requires CollectiveBuffer<B>
[[nodiscard]] Request iAllReduce(
    B&& data,
    ReduceOp op,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    return detail::ops::allReduce(op).start<false>(inPlace, data, comm, options, where);
}

/** @brief allReduce of one value in place: @p value becomes @p op over every rank's value. */
template<typename T, typename E = detail::ViewExecutionSpace>
requires MpiCompatible<T>
void allReduce(
    T& value,
    ReduceOp op,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    allReduce(std::span<T>(&value, 1), op, comm, options, where);
}

/** @brief Combines @p send of every rank with @p op into @p recv on @p root (MPI_Reduce); recv is
 * unused elsewhere. In place is the one-buffer form, reduce(data, op, root, comm). */
template<typename S, typename R, typename E = detail::ViewExecutionSpace>
requires CollectiveBuffer<S> && CollectiveBuffer<R>
void reduce(
    S&& send,
    R&& recv,
    ReduceOp op,
    int root,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    detail::ops::reduce(op, root).start<true>(send, recv, comm, options, where);
}

/** @brief Non-blocking reduce: combines @p send of every rank with @p op into @p recv on @p root
 * (MPI_Reduce); recv is unused elsewhere. In place is iReduce(data, op, root, comm). Returns the
 * Request to complete. */
template<typename S, typename R, typename E = detail::ViewExecutionSpace>
requires CollectiveBuffer<S> && CollectiveBuffer<R>
[[nodiscard]] Request iReduce(
    S&& send,
    R&& recv,
    ReduceOp op,
    int root,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    return detail::ops::reduce(op, root).start<false>(send, recv, comm, options, where);
}

/** @brief In place: every rank contributes @p data, the result replaces @p data on @p root. */
template<typename B, typename E = detail::ViewExecutionSpace>
requires CollectiveBuffer<B>
void reduce(
    B&& data,
    ReduceOp op,
    int root,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    detail::ops::reduce(op, root).start<true>(inPlace, data, comm, options, where);
}

/** @brief Non-blocking reduce: in place: every rank contributes @p data, the result replaces @p
 * data on @p root. Returns the Request to complete. */
template<typename B, typename E = detail::ViewExecutionSpace>
requires CollectiveBuffer<B>
[[nodiscard]] Request iReduce(
    B&& data,
    ReduceOp op,
    int root,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    return detail::ops::reduce(op, root).start<false>(inPlace, data, comm, options, where);
}

/** @brief Reduces @p send (size x n values) over all ranks with @p op; rank r receives block r of
 * the result in @p recv (MPI_Reduce_scatter_block). */
template<typename S, typename R, typename E = detail::ViewExecutionSpace>
requires SendArgument<S> && CollectiveBuffer<R>
void reduceScatter(
    S&& send,
    R&& recv,
    ReduceOp op,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    detail::ops::reduceScatter(op).start<true>(send, recv, comm, options, where);
}

/** @brief Non-blocking reduceScatter: reduces @p send (size x n values) over all ranks with @p op;
 * rank r receives block r of the result in @p recv (MPI_Reduce_scatter_block). Returns the Request
 * to complete. */
template<typename S, typename R, typename E = detail::ViewExecutionSpace>
requires SendArgument<S> && CollectiveBuffer<R>
[[nodiscard]] Request iReduceScatter(
    S&& send,
    R&& recv,
    ReduceOp op,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    return detail::ops::reduceScatter(op).start<false>(send, recv, comm, options, where);
}

/** @brief As reduceScatter with recvCounts[r] values for rank r (MPI_Reduce_scatter). */
template<typename S, typename R, typename E = detail::ViewExecutionSpace>
requires SendArgument<S> && CollectiveBuffer<R>
void reduceScatter(
    S&& send,
    R&& recv,
    std::span<const int> recvCounts,
    ReduceOp op,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    detail::ops::reduceScatter(recvCounts, op).start<true>(send, recv, comm, options, where);
}

/** @brief Non-blocking reduceScatter with recvCounts[r] values for rank r (MPI_Reduce_scatter).
 * Returns the Request to complete. */
template<typename S, typename R, typename E = detail::ViewExecutionSpace>
requires SendArgument<S> && CollectiveBuffer<R>
[[nodiscard]] Request iReduceScatter(
    S&& send,
    R&& recv,
    std::span<const int> recvCounts,
    ReduceOp op,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    return detail::ops::reduceScatter(recvCounts, op)
        .start<false>(send, recv, comm, options, where);
}

} // namespace fieldsync::mpi
