// SPDX-License-Identifier: MIT
// broadcast and barrier, each blocking and non-blocking (the i-form returns a Request); broadcast
// on spans, vectors and views (doc/collectives.md; pointer forms in compat/).
#pragma once

#include "fieldsync/mpi/collectiveBuffer.hpp"

namespace fieldsync::mpi
{

namespace detail::ops
{

/** @brief broadcast and iBroadcast (MPI_Bcast). */
[[nodiscard]] constexpr Operation broadcast(int root) noexcept
{
    return { Kind::Broadcast, { .root = root } };
}

/** @brief barrier and iBarrier (MPI_Barrier). */
[[nodiscard]] constexpr Operation barrier() noexcept
{
    return { Kind::Barrier, {} };
}

} // namespace detail::ops

/** @brief Copies @p data of @p root into @p data of every rank (MPI_Bcast). */
template<typename B, typename E = detail::ViewExecutionSpace>
requires CollectiveBuffer<B>
void broadcast(
    B&& data,
    int root,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    detail::ops::broadcast(root).start<true>(detail::NoBuffer {}, data, comm, options, where);
}

/** @brief Non-blocking broadcast: copies @p data of @p root into @p data of every rank (MPI_Bcast).
 * Returns the Request to complete. */
template<typename B, typename E = detail::ViewExecutionSpace>
requires CollectiveBuffer<B>
[[nodiscard]] Request iBroadcast(
    B&& data,
    int root,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    return detail::ops::broadcast(root).start<false>(
        detail::NoBuffer {}, data, comm, options, where
    );
}

/** @brief Blocks until every rank of @p comm has called barrier (MPI_Barrier). */
inline void barrier(MPI_Comm comm, std::source_location where = std::source_location::current())
{
    const detail::NoBuffer none;
    detail::ops::barrier().start<true>(none, none, comm, CallOptions<> {}, where);
}

/** @brief Starts a barrier (MPI_Ibarrier); the Request completes when every rank entered it. */
[[nodiscard]] inline Request
iBarrier(MPI_Comm comm, std::source_location where = std::source_location::current())
{
    const detail::NoBuffer none;
    return detail::ops::barrier().start<false>(none, none, comm, CallOptions<> {}, where);
}

} // namespace fieldsync::mpi
