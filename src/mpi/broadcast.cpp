// SPDX-License-Identifier: MIT
// The engine of broadcast and barrier (include/fieldsync/mpi/broadcast.hpp), blocking and
// non-blocking.
#include "collectiveEngine.hpp"

namespace fieldsync::mpi::detail
{

int runBroadcast(Engine& e)
{
    if (e.call().kind == Kind::Barrier)
    {
        e.agreeWithPeers();
        return e.blocking() ? MPI_Barrier(e.comm()) : MPI_Ibarrier(e.comm(), e.request());
    }
    const std::size_t n = e.recvBuffer().count;
    void* p = e.recv(e.isRoot() ? n : 0, e.isRoot() ? 0 : n);
    const int c = e.count(n);
    e.agreeWithPeers();
    if (!e.native())
    {
        return runAlgorithm(e, p, p, n);
    }
    return e.blocking() ? MPI_Bcast(p, c, e.type(), e.root(), e.comm())
                        : MPI_Ibcast(p, c, e.type(), e.root(), e.comm(), e.request());
}

} // namespace fieldsync::mpi::detail
