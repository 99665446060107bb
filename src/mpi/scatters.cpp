// SPDX-License-Identifier: MIT
// The engine of the scatters (include/fieldsync/mpi/scatters.hpp): scatter and scatterV,
// blocking and non-blocking.
#include "collectiveEngine.hpp"

namespace fieldsync::mpi::detail
{

namespace
{

int scatter(Engine& e)
{
    std::size_t n { 0 };
    const void* sp { nullptr };
    void* rp { nullptr };
    const Buffer& recvBuffer = e.recvBuffer();
    if (e.inPlace())
    {
        n = e.perRank(recvBuffer.count, "in-place buffer");
        void* io = e.recv(recvBuffer.count, e.isRoot() ? 0 : recvBuffer.count);
        sp = e.isRoot() ? io : nullptr;
        rp = e.isRoot() ? MPI_IN_PLACE : e.offset(io, n * static_cast<std::size_t>(e.rank()));
    }
    else
    {
        n = recvBuffer.count;
        if (e.isRoot())
        {
            e.need(e.sendBuffer(), n * e.usize(), "send buffer");
        }
        sp = e.isRoot() ? e.send(n * e.usize()) : nullptr;
        rp = e.recv(0, n);
    }
    const int c = e.count(n);
    e.agreeWithPeers();
    if (!e.native())
    {
        return runAlgorithm(e, sp, rp, n);
    }
    const MPI_Datatype t = e.type();
    return e.blocking() ? MPI_Scatter(sp, c, t, rp, c, t, e.root(), e.comm())
                        : MPI_Iscatter(sp, c, t, rp, c, t, e.root(), e.comm(), e.request());
}

/** scatterV on the root, or in place on any rank: the counts lay out the send buffer. */
Pointers scatterVCounted(Engine& e)
{
    const std::span<const int> sendCounts = e.call().sendCounts;
    const std::size_t total = e.layout(sendCounts, "sendCounts", Side::Send);
    const std::size_t mine = e.mine(sendCounts);
    Pointers p;
    if (e.inPlace())
    {
        e.need(e.recvBuffer(), total, "in-place buffer");
        void* io = e.recv(total, e.isRoot() ? 0 : total);
        p.send = e.isRoot() ? io : nullptr;
        p.recv =
            e.isRoot() ? MPI_IN_PLACE : e.offset(io, Engine::valuesBefore(sendCounts, e.rank()));
    }
    else
    {
        p = e.sendRecv(total, mine);
    }
    p.count = e.count(mine);
    return p;
}

/** scatterV off the root: sendCounts is optional; given, it fixes (and checks) this rank's count.
 */
Pointers scatterVOffRoot(Engine& e)
{
    const std::span<const int> sendCounts = e.call().sendCounts;
    std::size_t mine = e.recvBuffer().count;
    if (!sendCounts.empty())
    {
        static_cast<void>(e.layout(sendCounts, "sendCounts", Side::CheckOnly));
        mine = e.mine(sendCounts);
        e.need(e.recvBuffer(), mine, "receive buffer");
    }
    void* rp = e.recv(0, mine);
    return Pointers { nullptr, rp, e.count(mine) };
}

int scatterV(Engine& e)
{
    const Pointers p = e.inPlace() || e.isRoot() ? scatterVCounted(e) : scatterVOffRoot(e);
    const int* sc = e.keptCounts(Side::Send);
    const int* sd = e.keptDispls(Side::Send);
    const MPI_Datatype t = e.type();
    const int r = e.root();
    e.agreeWithPeers();
    return e.blocking()
               ? MPI_Scatterv(p.send, sc, sd, t, p.recv, p.count, t, r, e.comm())
               : MPI_Iscatterv(p.send, sc, sd, t, p.recv, p.count, t, r, e.comm(), e.request());
}

} // namespace

int runScatter(Engine& e)
{
    return e.call().kind == Kind::Scatter ? scatter(e) : scatterV(e);
}

} // namespace fieldsync::mpi::detail
