// SPDX-License-Identifier: MIT
// The engine of the gathers (include/fieldsync/mpi/gathers.hpp): allGather, allGatherV, gather
// and gatherV, blocking and non-blocking.
#include "collectiveEngine.hpp"

namespace fieldsync::mpi::detail
{

namespace
{

int allGather(Engine& e)
{
    const bool inPlace = e.inPlace();
    const std::size_t n =
        inPlace ? e.perRank(e.recvBuffer().count, "in-place buffer") : e.sendBuffer().count;
    const std::size_t total = n * e.usize();
    e.need(e.recvBuffer(), total, "receive buffer");
    const void* sp = inPlace ? MPI_IN_PLACE : e.send(n);
    void* rp = e.recv(inPlace ? total : 0, total);
    const int c = e.count(n);
    e.agreeWithPeers();
    if (!e.native())
    {
        return runAlgorithm(e, sp, rp, n);
    }
    const MPI_Datatype t = e.type();
    return e.blocking() ? MPI_Allgather(sp, c, t, rp, c, t, e.comm())
                        : MPI_Iallgather(sp, c, t, rp, c, t, e.comm(), e.request());
}

int allGatherV(Engine& e)
{
    const std::span<const int> recvCounts = e.call().recvCounts;
    const std::size_t total = e.layout(recvCounts, "recvCounts", Side::Recv);
    const std::size_t mine = e.mine(recvCounts);
    if (!e.inPlace())
    {
        e.sendHolds(mine, "rank");
    }
    e.need(e.recvBuffer(), total, "receive buffer");
    const void* sp = e.inPlace() ? MPI_IN_PLACE : e.send(mine);
    void* rp = e.recv(e.inPlace() ? total : 0, total);
    const int c = e.count(mine);
    const int* rc = e.state().recvCounts.data();
    const int* rd = e.state().recvDispls.data();
    const MPI_Datatype t = e.type();
    e.agreeWithPeers();
    return e.blocking() ? MPI_Allgatherv(sp, c, t, rp, rc, rd, t, e.comm())
                        : MPI_Iallgatherv(sp, c, t, rp, rc, rd, t, e.comm(), e.request());
}

int gather(Engine& e)
{
    std::size_t n { 0 };
    const void* sp { nullptr };
    void* rp { nullptr };
    const Buffer& recvBuffer = e.recvBuffer();
    if (e.inPlace())
    {
        n = e.perRank(recvBuffer.count, "in-place buffer");
        void* io = e.recv(recvBuffer.count, e.isRoot() ? recvBuffer.count : 0);
        sp = e.isRoot() ? MPI_IN_PLACE : e.offset(io, n * static_cast<std::size_t>(e.rank()));
        rp = e.isRoot() ? io : nullptr;
    }
    else
    {
        n = e.sendBuffer().count;
        if (e.isRoot())
        {
            e.need(recvBuffer, n * e.usize(), "receive buffer");
        }
        sp = e.send(n);
        rp = e.isRoot() ? e.recv(0, n * e.usize()) : nullptr;
    }
    const int c = e.count(n);
    e.agreeWithPeers();
    if (!e.native())
    {
        return runAlgorithm(e, sp, rp, n);
    }
    const MPI_Datatype t = e.type();
    return e.blocking() ? MPI_Gather(sp, c, t, rp, c, t, e.root(), e.comm())
                        : MPI_Igather(sp, c, t, rp, c, t, e.root(), e.comm(), e.request());
}

/** gatherV on the root, or in place on any rank: the counts lay out the receive buffer. */
Pointers gatherVCounted(Engine& e)
{
    const std::span<const int> recvCounts = e.call().recvCounts;
    const std::size_t total = e.layout(recvCounts, "recvCounts", Side::Recv);
    const std::size_t mine = e.mine(recvCounts);
    e.need(e.recvBuffer(), total, e.inPlace() ? "in-place buffer" : "receive buffer");
    Pointers p;
    if (e.inPlace())
    {
        void* io = e.recv(total, e.isRoot() ? total : 0);
        p.send =
            e.isRoot() ? MPI_IN_PLACE : e.offset(io, Engine::valuesBefore(recvCounts, e.rank()));
        p.recv = e.isRoot() ? io : nullptr;
    }
    else
    {
        e.sendHolds(mine, "root");
        p.send = e.send(mine);
        p.recv = e.recv(0, total);
    }
    p.count = e.count(mine);
    return p;
}

/** gatherV off the root: recvCounts is optional; given, it checks this rank's send count. */
Pointers gatherVOffRoot(Engine& e)
{
    const std::span<const int> recvCounts = e.call().recvCounts;
    if (!recvCounts.empty())
    {
        static_cast<void>(e.layout(recvCounts, "recvCounts", Side::CheckOnly));
        e.sendHolds(e.mine(recvCounts), "rank");
    }
    const std::size_t n = e.sendBuffer().count;
    const void* sp = e.send(n);
    return Pointers { sp, nullptr, e.count(n) };
}

int gatherV(Engine& e)
{
    const Pointers p = e.inPlace() || e.isRoot() ? gatherVCounted(e) : gatherVOffRoot(e);
    const int* rc = e.keptCounts(Side::Recv);
    const int* rd = e.keptDispls(Side::Recv);
    const MPI_Datatype t = e.type();
    const int r = e.root();
    e.agreeWithPeers();
    return e.blocking()
               ? MPI_Gatherv(p.send, p.count, t, p.recv, rc, rd, t, r, e.comm())
               : MPI_Igatherv(p.send, p.count, t, p.recv, rc, rd, t, r, e.comm(), e.request());
}

} // namespace

int runGather(Engine& e)
{
    switch (e.call().kind)
    {
    case Kind::AllGather:
        return allGather(e);
    case Kind::AllGatherV:
        return allGatherV(e);
    case Kind::Gather:
        return gather(e);
    default:
        return gatherV(e);
    }
}

} // namespace fieldsync::mpi::detail
