// SPDX-License-Identifier: MIT
// The allreduce and reduce-scatter algorithms (compat/fieldsync/mpi/algorithms.hpp): recursive
// doubling, ring, Rabenseifner, and reduce-scatter by recursive halving.
#include "scheduleState.hpp"

#include <algorithm>
#include <utility>

namespace fieldsync::mpi::algorithms
{

void addOrderedAllReduce(ScheduleState& s, std::byte* data, std::size_t n)
{
    addTreeReduce(s, data, data, n, 0);
    addTreeBroadcast(s, data, n, 0);
}

namespace
{

/**
 * An allreduce of @p count values in @p recv (after copying @p send there): @p steps adds the
 * commutative algorithm's rounds on (schedule, data, count); a non-commutative op runs the
 * rank-order fallback instead.
 */
template<typename Steps>
Schedule allReduce(
    const void* send,
    void* recv,
    std::size_t count,
    const TypeDesc& type,
    MPI_Op op,
    const Context& context,
    Steps&& steps
)
{
    auto s = std::make_unique<ScheduleState>(context, type, op);
    if (send != MPI_IN_PLACE)
    {
        s->copy(send, recv, count);
    }
    auto* data = static_cast<std::byte*>(recv);
    if (s->commutative())
    {
        steps(*s, data, count);
    }
    else
    {
        addOrderedAllReduce(*s, data, count);
    }
    return Schedule(std::move(s));
}

/** @p steps between the fold of the first 2r ranks in pairs and its reverse. */
template<typename Steps>
void folded(ScheduleState& s, std::byte* data, std::size_t count, Steps&& steps)
{
    const Fold fold(s.rank(), s.size());
    addFoldIn(s, fold, data, count);
    if (!fold.sitsOut())
    {
        steps(fold);
    }
    addFoldOut(s, fold, data, count);
}

/** The reduce-scatter ring: afterwards rank r holds block (r + 1) % p reduced. */
void addRingReduceScatter(ScheduleState& s, const BlockBuffer& buffer)
{
    const int p = s.size();
    const int r = s.rank();
    std::size_t largest { 0 };
    for (int k = 0; k < p; ++k)
    {
        largest = std::max(largest, buffer.values(k, k + 1));
    }
    std::byte* incoming = s.scratch(largest);
    for (int step = 0; step < p - 1; ++step)
    {
        const int out = (r - step + p) % p;
        const int in = (r - step - 1 + p) % p;
        s.newRound();
        transferBlocks(s, true, (r + 1) % p, buffer, out, out + 1);
        const std::size_t values = buffer.values(in, in + 1);
        s.transfer({ false, (r - 1 + p) % p, incoming, values });
        s.combine({ CombineKind::Reduce, incoming, buffer.block(s, in), values });
    }
}

/**
 * Where reduceScatter's recursive halving works: in @p inPlace when given (the fold reduces into
 * it), else in scratch, reading the caller's values @p in in its first round (returned as the
 * source) or, on the odd rank of a folded pair, after reducing the even rank's values into it.
 */
std::pair<std::byte*, const std::byte*>
foldInto(ScheduleState& s, const Fold& fold, const void* in, void* inPlace, std::size_t total)
{
    auto* values = static_cast<std::byte*>(const_cast<void*>(in));
    if (inPlace != nullptr)
    {
        addFoldIn(s, fold, static_cast<std::byte*>(inPlace), total);
        return { static_cast<std::byte*>(inPlace), nullptr };
    }
    if (fold.sitsOut())
    {
        s.newRound().transfer({ true, s.rank() + 1, values, total });
        return { nullptr, nullptr };
    }
    std::byte* work = s.scratch(total);
    if (s.rank() >= 2 * fold.extra)
    {
        return { work, values };
    }
    s.newRound().transfer({ false, s.rank() - 1, work, total });
    s.combine({ CombineKind::Reduce, values, work, total });
    return { work, nullptr };
}

} // namespace

Schedule allReduceRecursiveDoubling(
    const void* send,
    void* recv,
    std::size_t count,
    const TypeDesc& type,
    MPI_Op op,
    const Context& context
)
{
    const auto steps = [](ScheduleState& s, std::byte* data, std::size_t n)
    {
        folded(
            s,
            data,
            n,
            [&](const Fold& fold)
            {
                std::byte* incoming = s.scratch(n);
                for (int mask = 1; mask < fold.p2; mask *= 2)
                {
                    const int partner = fold.real(fold.virt ^ mask);
                    s.newRound();
                    s.transfer({ false, partner, incoming, n });
                    s.transfer({ true, partner, data, n });
                    s.combine({ CombineKind::Reduce, incoming, data, n });
                }
            }
        );
    };
    return allReduce(send, recv, count, type, op, context, steps);
}

Schedule allReduceRing(
    const void* send,
    void* recv,
    std::size_t count,
    const TypeDesc& type,
    MPI_Op op,
    const Context& context
)
{
    const auto steps = [](ScheduleState& s, std::byte* data, std::size_t n)
    {
        const std::vector<std::size_t> bounds = balancedBounds(n, s.size());
        addRingReduceScatter(s, BlockBuffer { data, bounds, 0, 0 });
        // rank r holds block (r + 1) % p: relative to root p - 1, rank r is block r + 1
        addRingAllGather(s, BlockBuffer { data, bounds, 0, s.size() - 1 });
    };
    return allReduce(send, recv, count, type, op, context, steps);
}

Schedule allReduceRabenseifner(
    const void* send,
    void* recv,
    std::size_t count,
    const TypeDesc& type,
    MPI_Op op,
    const Context& context
)
{
    const auto steps = [](ScheduleState& s, std::byte* data, std::size_t n)
    {
        folded(
            s,
            data,
            n,
            [&](const Fold& fold)
            {
                const BlockBuffer buffer { data, balancedBounds(n, fold.p2), 0, 0 };
                addRecursiveHalving(s, fold, buffer);
                addRecursiveDoublingGather(s, fold, buffer);
            }
        );
    };
    return allReduce(send, recv, count, type, op, context, steps);
}

Schedule reduceScatterRecursiveHalving(
    const void* send,
    void* recv,
    std::size_t countPerRank,
    const TypeDesc& type,
    MPI_Op op,
    const Context& context
)
{
    auto s = std::make_unique<ScheduleState>(context, type, op);
    const std::size_t total = countPerRank * s->usize();
    const int rank = s->rank();
    const void* in = send == MPI_IN_PLACE ? recv : send;
    if (!s->commutative())
    {
        std::byte* reduced = rank == 0 ? s->scratch(total) : nullptr;
        addTreeReduce(*s, static_cast<const std::byte*>(in), reduced, total, 0);
        addScatterDivideAndConquer(*s, reduced, recv, countPerRank, 0);
        return Schedule(std::move(s));
    }
    const Fold fold(rank, s->size());
    if (fold.p2 == 1)
    {
        s->copy(in, recv, countPerRank);
        return Schedule(std::move(s));
    }
    const auto [work, source] =
        foldInto(*s, fold, in, send == MPI_IN_PLACE ? recv : nullptr, total);
    if (!fold.sitsOut())
    {
        const BlockBuffer buffer { work, foldedBounds(fold, countPerRank), 0, 0 };
        addRecursiveHalving(*s, fold, buffer, source);
    }
    if (rank < 2 * fold.extra)
    {
        // the odd rank of a pair holds both blocks: the even one's goes to it
        std::byte* evenBlock = fold.sitsOut()
                                   ? static_cast<std::byte*>(recv)
                                   : s->at(work, countPerRank * static_cast<std::size_t>(rank - 1));
        s->newRound().transfer(
            { !fold.sitsOut(), fold.sitsOut() ? rank + 1 : rank - 1, evenBlock, countPerRank }
        );
    }
    if (!fold.sitsOut())
    {
        s->copy(s->at(work, countPerRank * static_cast<std::size_t>(rank)), recv, countPerRank);
    }
    return Schedule(std::move(s));
}

} // namespace fieldsync::mpi::algorithms
