// SPDX-License-Identifier: MIT
#include "bufferPool.hpp"

#include <algorithm>
#include <iterator>
#include <utility>

namespace fieldsync::halo
{

namespace
{
/** @brief The neighbours of @p map and their cell counts. */
std::pair<std::vector<int>, std::vector<std::size_t>> sizesOf(const RankSimplexCommMap& map)
{
    std::vector<int> ranks(map.neighbours().begin(), map.neighbours().end());
    std::vector<std::size_t> counts(ranks.size());
    for (std::size_t k = 0; k < ranks.size(); ++k)
    {
        counts[k] = map.offsets()[k + 1] - map.offsets()[k];
    }
    return { std::move(ranks), std::move(counts) };
}
} // namespace

std::size_t BufferPool::acquireOther(
    const mpi::detail::SpaceOps& space,
    bool reverse,
    int backEnd,
    const void* owner,
    const mpi::MPIEnvironment& env,
    const RankSimplexCommMap& from,
    const RankSimplexCommMap& to
)
{
    constexpr std::size_t none = static_cast<std::size_t>(-1);
    std::size_t chosen { none };
    // a free buffer nobody else used first (keeps other keys' persistent requests), then any
    for (int pass = 0; pass < 2 && chosen == none; ++pass)
    {
        for (std::size_t i = 0; i < entries_.size() && chosen == none; ++i)
        {
            const Entry& e = entries_[i];
            if (fits(e, space, reverse, backEnd) &&
                (pass == 1 || e.lastOwner == nullptr || e.lastOwner == owner))
            {
                chosen = i;
            }
        }
    }
    if (chosen == none)
    {
        auto [fromRanks, fromCounts] = sizesOf(from);
        auto [toRanks, toCounts] = sizesOf(to);
        entries_.push_back(Entry { &space,
                                   reverse,
                                   backEnd,
                                   false,
                                   nullptr,
                                   std::make_unique<DuplexBuffer>(
                                       space,
                                       env,
                                       std::move(fromRanks),
                                       std::move(fromCounts),
                                       std::move(toRanks),
                                       std::move(toCounts)
                                   ) });
        chosen = entries_.size() - 1;
    }
    entries_[chosen].claimed = true;
    entries_[chosen].lastOwner = owner;
    return chosen;
}

IndexCache::~IndexCache()
{
    for (const Entry& e : entries_)
    {
        if (e.borrowed)
        {
            continue;
        }
        for (const void* data : { static_cast<const void*>(e.arrays.send),
                                  static_cast<const void*>(e.arrays.receive),
                                  static_cast<const void*>(e.arrays.sendRuns.first),
                                  static_cast<const void*>(e.arrays.sendRuns.at),
                                  static_cast<const void*>(e.arrays.receiveRuns.first),
                                  static_cast<const void*>(e.arrays.receiveRuns.at) })
        {
            e.space->deallocate(const_cast<void*>(data));
        }
    }
}

template<typename T>
const T* IndexCache::copy(const Entry& entry, std::span<const T> values)
{
    if (entry.borrowed)
    {
        return values.data();
    }
    const std::size_t bytes = values.size() * sizeof(T);
    auto* data = static_cast<T*>(entry.space->allocate(bytes, "fieldsync::mapIndices"));
    if (bytes > 0)
    {
        entry.space->fromHost(data, values.data(), bytes);
    }
    return data;
}

const IndexArrays& IndexCache::get(
    const mpi::detail::SpaceOps& space,
    const RankSimplexCommMap& send,
    const RankSimplexCommMap& receive,
    const IndexRuns& sendRuns,
    const IndexRuns& receiveRuns,
    bool withRuns
)
{
    auto found = std::find_if(
        entries_.begin(), entries_.end(), [&](const Entry& e) { return e.space == &space; }
    );
    if (found == entries_.end())
    {
        Entry entry;
        entry.space = &space;
        entry.borrowed = &space == &mpi::detail::spaceOps<Kokkos::HostSpace>();
        entry.arrays.send = copy(entry, send.indices());
        entry.arrays.receive = copy(entry, receive.indices());
        entries_.push_back(entry);
        found = std::prev(entries_.end());
    }
    if (withRuns && !found->withRuns)
    {
        const auto runs = [&](const IndexRuns& r)
        {
            return RunArrays { copy(*found, r.first()), copy(*found, r.at()) };
        };
        found->arrays.sendRuns = runs(sendRuns);
        found->arrays.receiveRuns = runs(receiveRuns);
        found->withRuns = true;
    }
    return found->arrays;
}

} // namespace fieldsync::halo
