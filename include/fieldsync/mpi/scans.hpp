// SPDX-License-Identifier: MIT
// Scans: scan and exScan, each blocking and non-blocking (the i-form returns a Request), on
// spans, vectors and views (doc/collectives.md; pointer forms in compat/).
#pragma once

#include "fieldsync/mpi/collectiveBuffer.hpp"

namespace fieldsync::mpi
{

namespace detail::ops
{

/** @brief scan and iScan (MPI_Scan). */
[[nodiscard]] constexpr Operation scan(ReduceOp op) noexcept
{
    return { Kind::Scan, { .op = op } };
}

/** @brief exScan and iExScan (MPI_Exscan). */
[[nodiscard]] constexpr Operation exScan(ReduceOp op) noexcept
{
    return { Kind::ExScan, { .op = op } };
}

} // namespace detail::ops

/** @brief Rank r receives @p op over @p send of ranks 0..r (MPI_Scan). */
template<typename S, typename R, typename E = detail::ViewExecutionSpace>
requires SendArgument<S> && CollectiveBuffer<R>
void scan(
    S&& send,
    R&& recv,
    ReduceOp op,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    detail::ops::scan(op).start<true>(send, recv, comm, options, where);
}

/** @brief Non-blocking scan: rank r receives @p op over @p send of ranks 0..r (MPI_Scan). Returns
 * the Request to complete. */
template<typename S, typename R, typename E = detail::ViewExecutionSpace>
requires SendArgument<S> && CollectiveBuffer<R>
[[nodiscard]] Request iScan(
    S&& send,
    R&& recv,
    ReduceOp op,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    return detail::ops::scan(op).start<false>(send, recv, comm, options, where);
}

/** @brief Rank r > 0 receives @p op over @p send of ranks 0..r-1; recv of rank 0 is left unchanged
 * (MPI_Exscan). */
template<typename S, typename R, typename E = detail::ViewExecutionSpace>
requires SendArgument<S> && CollectiveBuffer<R>
void exScan(
    S&& send,
    R&& recv,
    ReduceOp op,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    detail::ops::exScan(op).start<true>(send, recv, comm, options, where);
}

/** @brief Non-blocking exScan: rank r > 0 receives @p op over @p send of ranks 0..r-1
 * (MPI_Exscan). Returns the Request to complete. */
template<typename S, typename R, typename E = detail::ViewExecutionSpace>
requires SendArgument<S> && CollectiveBuffer<R>
[[nodiscard]] Request iExScan(
    S&& send,
    R&& recv,
    ReduceOp op,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    return detail::ops::exScan(op).start<false>(send, recv, comm, options, where);
}

} // namespace fieldsync::mpi
