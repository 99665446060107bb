// SPDX-License-Identifier: MIT
// The rooted algorithms (compat/fieldsync/mpi/algorithms.hpp): binomial reduce and broadcast,
// scatter+allgather broadcast, naive and divide-and-conquer scatter, binomial and naive gather.
#include "scheduleState.hpp"

namespace fieldsync::mpi::algorithms
{

namespace
{

/** A schedule without a reduction op. */
std::unique_ptr<ScheduleState> plain(const Context& context, const TypeDesc& type)
{
    return std::make_unique<ScheduleState>(context, type, MPI_OP_NULL);
}

/** The values of rank @p r's block of @p each values in @p base. */
std::byte* blockOf(const ScheduleState& s, const void* base, std::size_t each, int r)
{
    return s.at(base, each * static_cast<std::size_t>(r));
}

/**
 * The naive scatter (@p scatter) or gather: the root sends (receives) block r of @p blocks to
 * (from) rank r, every other rank receives into (sends from) @p mine; @p own is the root's own
 * block, copied unless in place.
 */
Schedule naive(
    bool scatter,
    std::byte* blocks,
    std::byte* mine,
    const void* own,
    std::size_t n,
    int root,
    std::unique_ptr<ScheduleState> s
)
{
    s->newRound();
    if (s->rank() != root)
    {
        s->transfer({ !scatter, root, mine, n });
        return Schedule(std::move(s));
    }
    for (int r = 0; r < s->size(); ++r)
    {
        if (r != root)
        {
            s->transfer({ scatter, r, blockOf(*s, blocks, n, r), n });
        }
    }
    if (own != MPI_IN_PLACE)
    {
        std::byte* rootBlock = blockOf(*s, blocks, n, root);
        scatter ? s->copy(rootBlock, const_cast<void*>(own), n) : s->copy(own, rootBlock, n);
    }
    return Schedule(std::move(s));
}

} // namespace

void addScatterDivideAndConquer(
    ScheduleState& s, const std::byte* send, void* recv, std::size_t countPerRank, int root
)
{
    const int p = s.size();
    const int vr = relative(s.rank(), root, p);
    const std::vector<TreeStep> steps = scatterSteps(vr, p);
    const int held = subtreeEnd(steps, p) - vr;
    std::byte* work { nullptr };
    if (vr == 0)
    {
        work = root == 0 ? const_cast<std::byte*>(send) : s.scratch(countPerRank * s.usize());
        if (root != 0)
        {
            addRotation(s, send, work, countPerRank, root, true);
        }
    }
    else
    {
        work = held == 1 ? static_cast<std::byte*>(recv)
                         : s.scratch(countPerRank * static_cast<std::size_t>(held));
    }
    addTreeScatter(s, BlockBuffer { work, equalBounds(countPerRank, p), vr, root });
    if (recv != MPI_IN_PLACE)
    {
        s.copy(work, recv, countPerRank);
    }
}

Schedule reduceBinomial(
    const void* send,
    void* recv,
    std::size_t count,
    const TypeDesc& type,
    MPI_Op op,
    int root,
    const Context& context
)
{
    auto s = std::make_unique<ScheduleState>(context, type, op);
    const void* in = send == MPI_IN_PLACE ? recv : send;
    addTreeReduce(
        *s, static_cast<const std::byte*>(in), static_cast<std::byte*>(recv), count, root
    );
    return Schedule(std::move(s));
}

Schedule broadcastBinomial(
    void* data, std::size_t count, const TypeDesc& type, int root, const Context& context
)
{
    auto s = plain(context, type);
    addTreeBroadcast(*s, static_cast<std::byte*>(data), count, root);
    return Schedule(std::move(s));
}

Schedule broadcastScatterAllGather(
    void* data, std::size_t count, const TypeDesc& type, int root, const Context& context
)
{
    auto s = plain(context, type);
    // every rank holds the whole vector, so block k sits at its final place on every rank
    const BlockBuffer buffer {
        static_cast<std::byte*>(data), balancedBounds(count, s->size()), 0, root
    };
    addTreeScatter(*s, buffer);
    addRingAllGather(*s, buffer);
    return Schedule(std::move(s));
}

Schedule scatterNaive(
    const void* send,
    void* recv,
    std::size_t countPerRank,
    const TypeDesc& type,
    int root,
    const Context& context
)
{
    auto* blocks = static_cast<std::byte*>(const_cast<void*>(send));
    return naive(
        true, blocks, static_cast<std::byte*>(recv), recv, countPerRank, root, plain(context, type)
    );
}

Schedule scatterDivideAndConquer(
    const void* send,
    void* recv,
    std::size_t countPerRank,
    const TypeDesc& type,
    int root,
    const Context& context
)
{
    auto s = plain(context, type);
    addScatterDivideAndConquer(*s, static_cast<const std::byte*>(send), recv, countPerRank, root);
    return Schedule(std::move(s));
}

Schedule gatherBinomial(
    const void* send,
    void* recv,
    std::size_t countPerRank,
    const TypeDesc& type,
    int root,
    const Context& context
)
{
    auto s = plain(context, type);
    const int p = s->size();
    const int vr = relative(s->rank(), root, p);
    const std::vector<TreeStep> steps = scatterSteps(vr, p);
    const int held = subtreeEnd(steps, p) - vr;
    const void* own = send == MPI_IN_PLACE ? blockOf(*s, recv, countPerRank, root) : send;
    std::byte* work = static_cast<std::byte*>(const_cast<void*>(own));
    if (vr == 0 && root == 0)
    {
        work = static_cast<std::byte*>(recv);
    }
    else if (held > 1 || vr == 0)
    {
        work = s->scratch(countPerRank * static_cast<std::size_t>(held));
    }
    s->copy(own, work, countPerRank);
    const BlockBuffer buffer { work, equalBounds(countPerRank, p), vr, root };
    for (auto step = steps.rbegin(); step != steps.rend(); ++step)
    {
        const int peer = absolute(step->peer, root, p);
        s->newRound();
        transferBlocks(*s, !step->isSend, peer, buffer, step->first, step->last);
    }
    if (vr == 0 && root != 0)
    {
        addRotation(*s, work, static_cast<std::byte*>(recv), countPerRank, root, false);
    }
    return Schedule(std::move(s));
}

Schedule gatherNaive(
    const void* send,
    void* recv,
    std::size_t countPerRank,
    const TypeDesc& type,
    int root,
    const Context& context
)
{
    auto* mine = static_cast<std::byte*>(const_cast<void*>(send));
    return naive(
        false, static_cast<std::byte*>(recv), mine, send, countPerRank, root, plain(context, type)
    );
}

} // namespace fieldsync::mpi::algorithms
