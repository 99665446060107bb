// SPDX-License-Identifier: MIT
#include "fieldsync/halo/rankSimplexCommMap.hpp"

#include "ascending.hpp"

#include "fieldsync/core/error.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <unordered_map>

namespace fieldsync::halo
{

namespace
{
void checkRank(int rank, int nRanks, const std::source_location& where)
{
    FIELDSYNC_CHECK_AT(
        rank >= 0 && rank < nRanks,
        "RankSimplexCommMap: neighbour rank " + std::to_string(rank) + " is out of range [0, " +
            std::to_string(nRanks) + ")",
        where
    );
}

void checkIndices(int rank, std::span<const LocalIndex> indices, const std::source_location& where)
{
    for (std::size_t i = 0; i < indices.size(); ++i)
    {
        FIELDSYNC_CHECK_AT(
            indices[i] >= 0,
            "RankSimplexCommMap: neighbour rank " + std::to_string(rank) + " entry " +
                std::to_string(i) + " has the negative cell index " + std::to_string(indices[i]),
            where
        );
    }
}
} // namespace

RankSimplexCommMap::RankSimplexCommMap(int nRanks, std::source_location where) : nRanks_(nRanks)
{
    FIELDSYNC_CHECK_AT(
        nRanks >= 0,
        "RankSimplexCommMap: negative communicator size " + std::to_string(nRanks),
        where
    );
}

RankSimplexCommMap::RankSimplexCommMap(
    int nRanks,
    std::vector<int> neighbourRanks,
    std::vector<std::size_t> offsets,
    std::vector<LocalIndex> indices,
    std::source_location where
)
    : RankSimplexCommMap(nRanks, where)
{
    FIELDSYNC_CHECK_AT(
        offsets.size() == neighbourRanks.size() + 1,
        "RankSimplexCommMap: " + std::to_string(offsets.size()) + " offsets for " +
            std::to_string(neighbourRanks.size()) + " neighbours (need one more offset)",
        where
    );
    FIELDSYNC_CHECK_AT(
        offsets.front() == 0 && offsets.back() == indices.size(),
        "RankSimplexCommMap: offsets must run from 0 to the number of indices " +
            std::to_string(indices.size()) + ", got " + std::to_string(offsets.front()) + " to " +
            std::to_string(offsets.back()),
        where
    );
    bool canonical { true }; // ranks ascending, no empty list: taken as given
    for (std::size_t k = 0; k < neighbourRanks.size(); ++k)
    {
        checkRank(neighbourRanks[k], nRanks, where);
        FIELDSYNC_CHECK_AT(
            offsets[k] <= offsets[k + 1],
            "RankSimplexCommMap: offsets decrease at neighbour rank " +
                std::to_string(neighbourRanks[k]) + " (" + std::to_string(offsets[k]) + " > " +
                std::to_string(offsets[k + 1]) + ")",
            where
        );
        canonical = canonical && offsets[k] < offsets[k + 1] &&
                    (k == 0 || neighbourRanks[k - 1] < neighbourRanks[k]);
    }
    if (canonical)
    {
        neighbours_ = std::move(neighbourRanks);
        offsets_ = std::move(offsets);
        indices_ = std::move(indices);
        analyse(where); // also finds negative indices
        return;
    }
    std::vector<std::size_t> order(neighbourRanks.size());
    std::iota(order.begin(), order.end(), std::size_t { 0 });
    std::sort(
        order.begin(),
        order.end(),
        [&](std::size_t a, std::size_t b) { return neighbourRanks[a] < neighbourRanks[b]; }
    );
    indices_.reserve(indices.size());
    for (std::size_t j = 0; j < order.size(); ++j)
    {
        const std::size_t k = order[j];
        const int rank = neighbourRanks[k];
        FIELDSYNC_CHECK_AT(
            j == 0 || neighbourRanks[order[j - 1]] != rank,
            "RankSimplexCommMap: neighbour rank " + std::to_string(rank) + " is listed twice",
            where
        );
        if (offsets[k] == offsets[k + 1])
        {
            continue;
        }
        const std::span<const LocalIndex> cells(
            indices.data() + offsets[k], offsets[k + 1] - offsets[k]
        );
        neighbours_.push_back(rank);
        indices_.insert(indices_.end(), cells.begin(), cells.end());
        offsets_.push_back(indices_.size());
    }
    analyse(where);
}

void RankSimplexCommMap::setRank(
    int rank, std::vector<LocalIndex> indices, std::source_location where
)
{
    checkRank(rank, nRanks_, where);
    checkIndices(rank, indices, where);
    const auto pos = std::lower_bound(neighbours_.begin(), neighbours_.end(), rank);
    const auto k = static_cast<std::size_t>(pos - neighbours_.begin());
    const bool present = pos != neighbours_.end() && *pos == rank;
    const auto first = static_cast<std::ptrdiff_t>(offsets_[k]);
    const auto last = static_cast<std::ptrdiff_t>(present ? offsets_[k + 1] : offsets_[k]);
    indices_.erase(indices_.begin() + first, indices_.begin() + last);
    indices_.insert(indices_.begin() + first, indices.begin(), indices.end());
    if (present)
    {
        neighbours_.erase(pos);
    }
    if (!indices.empty())
    {
        neighbours_.insert(neighbours_.begin() + static_cast<std::ptrdiff_t>(k), rank);
    }
    // rebuild the offsets from the per-neighbour sizes
    std::vector<std::size_t> sizes;
    sizes.reserve(neighbours_.size());
    for (std::size_t j = 0; j + 1 < offsets_.size(); ++j)
    {
        if (j == k && present)
        {
            continue;
        }
        sizes.push_back(offsets_[j + 1] - offsets_[j]);
    }
    if (!indices.empty())
    {
        sizes.insert(sizes.begin() + static_cast<std::ptrdiff_t>(k), indices.size());
    }
    offsets_.assign(1, 0);
    for (const std::size_t s : sizes)
    {
        offsets_.push_back(offsets_.back() + s);
    }
    analyse(where);
}

void RankSimplexCommMap::analyse(const std::source_location& where)
{
    FIELDSYNC_CHECK_AT(
        offsets_.size() == neighbours_.size() + 1 && offsets_.back() == indices_.size(),
        "RankSimplexCommMap: internal offsets inconsistent",
        where
    );
    runStart_.assign(neighbours_.size(), -1);
    LocalIndex highest { -1 };
    for (std::size_t k = 0; k < neighbours_.size(); ++k)
    {
        const std::span<const LocalIndex> cells(
            indices_.data() + offsets_[k], offsets_[k + 1] - offsets_[k]
        );
        LocalIndex lowest { cells.empty() ? 0 : cells.front() };
        std::size_t breaks { 0 }; // places where the list does not go up by one
        for (std::size_t i = 1; i < cells.size(); ++i)
        {
            highest = std::max(highest, cells[i]);
            lowest = std::min(lowest, cells[i]);
            breaks += cells[i] == cells[i - 1] + 1 ? 0 : 1;
        }
        if (!cells.empty())
        {
            highest = std::max(highest, cells.front());
        }
        if (lowest < 0)
        {
            checkIndices(neighbours_[k], cells, where); // names the entry
        }
        runStart_[k] = !cells.empty() && breaks == 0 ? cells.front() : -1;
    }
    maxIndex_ = highest;
}

int RankSimplexCommMap::slotOf(int rank) const noexcept
{
    const auto pos = std::lower_bound(neighbours_.begin(), neighbours_.end(), rank);
    if (pos == neighbours_.end() || *pos != rank)
    {
        return -1;
    }
    return static_cast<int>(pos - neighbours_.begin());
}

std::span<const LocalIndex> RankSimplexCommMap::indicesOf(int rank) const
{
    const int k = slotOf(rank);
    if (k < 0)
    {
        return {};
    }
    const auto uk = static_cast<std::size_t>(k);
    return { indices_.data() + offsets_[uk], offsets_[uk + 1] - offsets_[uk] };
}

void RankSimplexCommMap::validateFieldSize(
    std::size_t fieldSize, std::string_view what, const std::source_location& where
) const
{
    if (maxIndex_ < 0 || static_cast<std::size_t>(maxIndex_) < fieldSize)
    {
        return;
    }
    for (std::size_t k = 0; k < neighbours_.size(); ++k)
    {
        for (std::size_t i = offsets_[k]; i < offsets_[k + 1]; ++i)
        {
            FIELDSYNC_CHECK_AT(
                static_cast<std::size_t>(indices_[i]) < fieldSize,
                std::string(what) + ": neighbour rank " + std::to_string(neighbours_[k]) +
                    " entry " + std::to_string(i - offsets_[k]) + " is cell " +
                    std::to_string(indices_[i]) + ", beyond the field of " +
                    std::to_string(fieldSize) + " cells",
                where
            );
        }
    }
}

void RankSimplexCommMap::validateUnique(std::string_view what, const std::source_location& where)
    const
{
    const auto twice = [&](LocalIndex cell, int firstRank, std::size_t k, std::size_t i)
    {
        throw Error(
            std::string(what) + ": cell " + std::to_string(cell) +
                " is written twice (from neighbour rank " + std::to_string(firstRank) +
                " and from neighbour rank " + std::to_string(neighbours_[k]) + ", entry " +
                std::to_string(i - offsets_[k]) + ")",
            where
        );
    };
    if (maxIndex_ < 0)
    {
        return;
    }
    if (strictlyAscending(indices_)) // over all neighbours: no cell written twice
    {
        return;
    }
    // cells are local indices, usually one dense range (the ghosts): a table over that range
    // (no hashing) unless they are spread out
    const LocalIndex lowest = *std::min_element(indices_.begin(), indices_.end());
    if (static_cast<std::size_t>(maxIndex_ - lowest) <= 4 * indices_.size() + 1024)
    {
        std::vector<int> writer(static_cast<std::size_t>(maxIndex_ - lowest) + 1, -1);
        for (std::size_t k = 0; k < neighbours_.size(); ++k)
        {
            for (std::size_t i = offsets_[k]; i < offsets_[k + 1]; ++i)
            {
                int& seen = writer[static_cast<std::size_t>(indices_[i] - lowest)];
                if (seen >= 0)
                {
                    twice(indices_[i], seen, k, i);
                }
                seen = neighbours_[k];
            }
        }
        return;
    }
    std::unordered_map<LocalIndex, int> seen;
    seen.reserve(indices_.size());
    for (std::size_t k = 0; k < neighbours_.size(); ++k)
    {
        for (std::size_t i = offsets_[k]; i < offsets_[k + 1]; ++i)
        {
            const auto [it, inserted] = seen.emplace(indices_[i], neighbours_[k]);
            if (!inserted)
            {
                twice(indices_[i], it->second, k, i);
            }
        }
    }
}

bool RankSimplexCommMap::hasRepeatWithinNeighbour() const
{
    // one bit per cell over the range of each neighbour's cells (no sort: send cells are spread
    // over the owned cells); a sorted copy only when the range is far larger than the list
    std::vector<std::uint64_t> seen;
    for (std::size_t k = 0; k < neighbours_.size(); ++k)
    {
        if (runStart_[k] >= 0)
        {
            continue;
        }
        const std::span<const LocalIndex> cells(
            indices_.data() + offsets_[k], offsets_[k + 1] - offsets_[k]
        );
        if (strictlyAscending(cells)) // the usual order: no repeat
        {
            continue;
        }
        const auto [low, high] = std::minmax_element(cells.begin(), cells.end());
        const auto words = (static_cast<std::size_t>(*high - *low) >> 6U) + 1;
        if (words <= 4 * cells.size() + 1024)
        {
            seen.assign(words, 0);
            for (const LocalIndex cell : cells)
            {
                const auto bit = static_cast<std::size_t>(cell - *low);
                const std::uint64_t mask { std::uint64_t { 1 } << (bit & 63U) };
                if ((seen[bit >> 6U] & mask) != 0)
                {
                    return true;
                }
                seen[bit >> 6U] |= mask;
            }
            continue;
        }
        std::vector<LocalIndex> sorted(cells.begin(), cells.end());
        std::sort(sorted.begin(), sorted.end());
        if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
        {
            return true;
        }
    }
    return false;
}

} // namespace fieldsync::halo
