// SPDX-License-Identifier: MIT
// The allgather algorithms (compat/fieldsync/mpi/algorithms.hpp): ring and recursive doubling.
#include "scheduleState.hpp"

namespace fieldsync::mpi::algorithms
{

namespace
{

/** A schedule whose receive buffer already holds this rank's block at its place. */
std::unique_ptr<ScheduleState> withOwnBlock(
    const void* send,
    void* recv,
    std::size_t countPerRank,
    const TypeDesc& type,
    const Context& context
)
{
    auto s = std::make_unique<ScheduleState>(context, type, MPI_OP_NULL);
    if (send != MPI_IN_PLACE)
    {
        s->copy(
            send, s->at(recv, countPerRank * static_cast<std::size_t>(s->rank())), countPerRank
        );
    }
    return s;
}

} // namespace

Schedule allGatherRing(
    const void* send,
    void* recv,
    std::size_t countPerRank,
    const TypeDesc& type,
    const Context& context
)
{
    auto s = withOwnBlock(send, recv, countPerRank, type, context);
    addRingAllGather(
        *s,
        BlockBuffer { static_cast<std::byte*>(recv), equalBounds(countPerRank, s->size()), 0, 0 }
    );
    return Schedule(std::move(s));
}

Schedule allGatherRecursiveDoubling(
    const void* send,
    void* recv,
    std::size_t countPerRank,
    const TypeDesc& type,
    const Context& context
)
{
    auto s = withOwnBlock(send, recv, countPerRank, type, context);
    const Fold fold(s->rank(), s->size());
    const int rank = s->rank();
    auto* data = static_cast<std::byte*>(recv);
    // the pairs of the first 2r ranks: the even rank's block goes to the odd one, which stands
    // for both (their blocks are neighbours, so every index holds one contiguous range)
    if (rank < 2 * fold.extra)
    {
        const int even = rank - rank % 2;
        std::byte* block = s->at(data, countPerRank * static_cast<std::size_t>(even));
        s->newRound().transfer(
            { fold.sitsOut(), fold.sitsOut() ? rank + 1 : rank - 1, block, countPerRank }
        );
    }
    if (!fold.sitsOut())
    {
        addRecursiveDoublingGather(
            *s, fold, BlockBuffer { data, foldedBounds(fold, countPerRank), 0, 0 }
        );
    }
    addFoldOut(*s, fold, data, countPerRank * s->usize());
    return Schedule(std::move(s));
}

} // namespace fieldsync::mpi::algorithms
