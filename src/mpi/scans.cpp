// SPDX-License-Identifier: MIT
// The engine of the scans (include/fieldsync/mpi/scans.hpp): scan and exScan, blocking and
// non-blocking.
#include "collectiveEngine.hpp"

namespace fieldsync::mpi::detail
{

int runScan(Engine& e)
{
    const bool inPlace = e.inPlace();
    const std::size_t n = inPlace ? e.recvBuffer().count : e.sendBuffer().count;
    e.need(e.recvBuffer(), n, "receive buffer");
    const void* sp = inPlace ? MPI_IN_PLACE : e.send(n);
    // MPI leaves rank 0's result of an exclusive scan undefined: nothing to copy back
    const bool exclusive = e.call().kind == Kind::ExScan;
    const bool written = !(exclusive && e.rank() == 0 && !inPlace);
    void* rp = e.recv(inPlace ? n : 0, written ? n : 0);
    const int c = e.count(n);
    const MPI_Datatype type = e.type();
    if (exclusive)
    {
        e.agreeWithPeers();
        return e.blocking() ? MPI_Exscan(sp, rp, c, type, e.op(), e.comm())
                            : MPI_Iexscan(sp, rp, c, type, e.op(), e.comm(), e.request());
    }
    e.agreeWithPeers();
    return e.blocking() ? MPI_Scan(sp, rp, c, type, e.op(), e.comm())
                        : MPI_Iscan(sp, rp, c, type, e.op(), e.comm(), e.request());
}

} // namespace fieldsync::mpi::detail
