// SPDX-License-Identifier: MIT
// The engine of the reductions (include/fieldsync/mpi/reductions.hpp): allReduce, reduce and
// reduceScatter, blocking and non-blocking.
#include "collectiveEngine.hpp"

namespace fieldsync::mpi::detail
{

namespace
{

int allReduce(Engine& e)
{
    const Buffer& recvBuffer = e.recvBuffer();
    const std::size_t n = e.inPlace() ? recvBuffer.count : e.sendBuffer().count;
    e.need(recvBuffer, n, "receive buffer");
    const void* sp = e.inPlace() ? MPI_IN_PLACE : e.send(n);
    void* rp = e.recv(e.inPlace() ? n : 0, n);
    const int c = e.count(n);
    e.agreeWithPeers();
    if (!e.native())
    {
        return runAlgorithm(e, sp, rp, n);
    }
    return e.blocking() ? MPI_Allreduce(sp, rp, c, e.type(), e.op(), e.comm())
                        : MPI_Iallreduce(sp, rp, c, e.type(), e.op(), e.comm(), e.request());
}

int reduce(Engine& e)
{
    const Buffer& recvBuffer = e.recvBuffer();
    const std::size_t n = e.inPlace() ? recvBuffer.count : e.sendBuffer().count;
    const void* sp { nullptr };
    void* rp { nullptr };
    if (e.inPlace())
    {
        void* io = e.recv(n, e.isRoot() ? n : 0);
        sp = e.isRoot() ? MPI_IN_PLACE : io;
        rp = e.isRoot() ? io : nullptr;
    }
    else
    {
        if (e.isRoot())
        {
            e.need(recvBuffer, n, "receive buffer");
        }
        sp = e.send(n);
        rp = e.isRoot() ? e.recv(0, n) : nullptr;
    }
    const int c = e.count(n);
    e.agreeWithPeers();
    if (!e.native())
    {
        return runAlgorithm(e, sp, rp, n);
    }
    return e.blocking() ? MPI_Reduce(sp, rp, c, e.type(), e.op(), e.root(), e.comm())
                        : MPI_Ireduce(sp, rp, c, e.type(), e.op(), e.root(), e.comm(), e.request());
}

/** MPI_Reduce_scatter: recvCounts[r] values for rank r. */
int reduceScatter(Engine& e)
{
    const std::span<const int> recvCounts = e.call().recvCounts;
    const std::size_t total = e.layout(recvCounts, "recvCounts", Side::Recv);
    const std::size_t mine = e.mine(recvCounts);
    Pointers p { MPI_IN_PLACE, nullptr, 0 };
    if (e.inPlace())
    {
        e.need(e.recvBuffer(), total, "in-place buffer");
        p.recv = e.recv(total, mine);
    }
    else
    {
        p = e.sendRecv(total, mine);
    }
    const int* counts = e.state().recvCounts.data();
    const MPI_Datatype t = e.type();
    e.agreeWithPeers();
    return e.blocking()
               ? MPI_Reduce_scatter(p.send, p.recv, counts, t, e.op(), e.comm())
               : MPI_Ireduce_scatter(p.send, p.recv, counts, t, e.op(), e.comm(), e.request());
}

/** MPI_Reduce_scatter_block: equal blocks. */
int reduceScatterBlock(Engine& e)
{
    const bool inPlace = e.inPlace();
    const std::size_t n = inPlace ? e.perRank(e.recvBuffer().count, "in-place buffer")
                                  : e.perRank(e.sendBuffer().count, "send buffer");
    e.need(e.recvBuffer(), inPlace ? n * e.usize() : n, "receive buffer");
    const void* sp = inPlace ? MPI_IN_PLACE : e.send(n * e.usize());
    void* rp = e.recv(inPlace ? n * e.usize() : 0, n);
    const int c = e.count(n);
    e.agreeWithPeers();
    if (!e.native())
    {
        return runAlgorithm(e, sp, rp, n);
    }
    return e.blocking()
               ? MPI_Reduce_scatter_block(sp, rp, c, e.type(), e.op(), e.comm())
               : MPI_Ireduce_scatter_block(sp, rp, c, e.type(), e.op(), e.comm(), e.request());
}

} // namespace

int runReduction(Engine& e)
{
    switch (e.call().kind)
    {
    case Kind::AllReduce:
        return allReduce(e);
    case Kind::Reduce:
        return reduce(e);
    case Kind::ReduceScatter:
        return reduceScatter(e);
    default:
        return reduceScatterBlock(e);
    }
}

} // namespace fieldsync::mpi::detail
