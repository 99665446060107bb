// SPDX-License-Identifier: MIT
// The engine of all-to-all (include/fieldsync/mpi/allToAll.hpp): allToAll and allToAllV,
// blocking and non-blocking.
#include "collectiveEngine.hpp"

namespace fieldsync::mpi::detail
{

namespace
{

int allToAll(Engine& e)
{
    const bool inPlace = e.inPlace();
    const std::size_t n = inPlace ? e.perRank(e.recvBuffer().count, "in-place buffer")
                                  : e.perRank(e.sendBuffer().count, "send buffer");
    const std::size_t total = n * e.usize();
    e.need(e.recvBuffer(), total, "receive buffer");
    const void* sp = inPlace ? MPI_IN_PLACE : e.send(total);
    void* rp = e.recv(inPlace ? total : 0, total);
    const int c = e.count(n);
    const MPI_Datatype t = e.type();
    e.agreeWithPeers();
    return e.blocking() ? MPI_Alltoall(sp, c, t, rp, c, t, e.comm())
                        : MPI_Ialltoall(sp, c, t, rp, c, t, e.comm(), e.request());
}

int allToAllV(Engine& e)
{
    const bool inPlace = e.inPlace();
    const std::size_t rTotal = e.layout(e.call().recvCounts, "recvCounts", Side::Recv);
    e.need(e.recvBuffer(), rTotal, inPlace ? "in-place buffer" : "receive buffer");
    const void* sp = MPI_IN_PLACE;
    if (!inPlace)
    {
        const std::size_t sTotal = e.layout(e.call().sendCounts, "sendCounts", Side::Send);
        e.need(e.sendBuffer(), sTotal, "send buffer");
        sp = e.send(sTotal);
    }
    void* rp = e.recv(inPlace ? rTotal : 0, rTotal);
    const RequestState& state = e.state();
    const int* sc = inPlace ? nullptr : state.sendCounts.data();
    const int* sd = inPlace ? nullptr : state.sendDispls.data();
    const int* rc = state.recvCounts.data();
    const int* rd = state.recvDispls.data();
    const MPI_Datatype t = e.type();
    e.agreeWithPeers();
    return e.blocking() ? MPI_Alltoallv(sp, sc, sd, t, rp, rc, rd, t, e.comm())
                        : MPI_Ialltoallv(sp, sc, sd, t, rp, rc, rd, t, e.comm(), e.request());
}

} // namespace

int runAllToAll(Engine& e)
{
    return e.call().kind == Kind::AllToAll ? allToAll(e) : allToAllV(e);
}

} // namespace fieldsync::mpi::detail
