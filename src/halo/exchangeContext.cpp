// SPDX-License-Identifier: MIT
#include "exchangeContext.hpp"

#include "fieldsync/core/error.hpp"

#include <atomic>

namespace fieldsync::halo
{

namespace
{
/** @brief The next Communicator identifier this process may use (identifiers only grow). */
std::atomic<std::uint64_t> nextId { 1 };

} // namespace

ContextBid contextBid(MPI_Comm comm, const std::source_location& where)
{
    return { nextId.load(), mpi::detail::privateCommOf(comm, where)->nextWindow };
}

void takeBid(MPI_Comm comm, const ContextBid& agreed, bool window)
{
    std::uint64_t expected { nextId.load() };
    while (expected <= agreed.id && !nextId.compare_exchange_weak(expected, agreed.id + 1))
    {
    }
    if (window)
    {
        mpi::detail::privateCommOf(comm, std::source_location::current())->nextWindow =
            agreed.window + 1;
    }
}

ExchangeContext grantContext(
    const mpi::MPIEnvironment& env,
    const ContextBid& agreed,
    bool ownDuplicate,
    const std::source_location& where
)
{
    const auto& shared = mpi::detail::privateCommOf(env.comm(), where);
    if (!ownDuplicate && agreed.window <= static_cast<std::uint64_t>(shared->windows()))
    {
        return ExchangeContext {
            mpi::MPIEnvironment(shared->comm, where),
            TagWindow::window(static_cast<int>(agreed.window)),
            agreed.id,
            shared,
            std::nullopt,
        };
    }
    // the tag range has no window left (or the caller wants a communicator of its own)
    MPI_Comm own { MPI_COMM_NULL };
    FIELDSYNC_MPI_AT(MPI_Comm_dup(env.comm(), &own), where);
    mpi::MPIEnvironment adopted = mpi::MPIEnvironment::adopt(own, where);
    const TagWindow whole = TagWindow::whole(shared->tagUpperBound);
    return ExchangeContext { std::move(adopted), whole, agreed.id, nullptr, std::nullopt };
}

ExchangeContext
agreeContext(const mpi::MPIEnvironment& env, bool ownDuplicate, const std::source_location& where)
{
    const ContextBid mine { contextBid(env.comm(), where) };
    const std::uint64_t bid[2] { mine.id, mine.window };
    std::uint64_t highest[2] { 0, 0 };
    FIELDSYNC_MPI_AT(
        MPI_Allreduce(
            bid, highest, 2, MPI_UINT64_T, MPI_MAX, mpi::detail::privateComm(env.comm(), where)
        ),
        where
    );
    const ContextBid agreed { highest[0], highest[1] };
    takeBid(env.comm(), agreed, !ownDuplicate);
    return grantContext(env, agreed, ownDuplicate, where);
}

} // namespace fieldsync::halo
