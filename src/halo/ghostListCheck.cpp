// SPDX-License-Identifier: MIT
// The one check of a ghost list's entries: a pass without a branch per entry, and only when it
// finds a bad one, the checks that name it.
#include "ghostListCheck.hpp"

#include "ascending.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <utility>

namespace fieldsync::halo::detail
{

GhostListCheck::GhostListCheck(
    std::size_t nOwned,
    std::span<const LocalIndex> ghostCells,
    std::span<const GhostOwner> owners,
    int self,
    int nRanks,
    bool selfOwned,
    std::function<void(const std::string&)> fail
)
    : nOwned_(nOwned), ghostCells_(ghostCells), owners_(owners), self_(self), nRanks_(nRanks),
      selfOwned_(selfOwned), fail_(std::move(fail))
{
    if (ghostCells_.size() != owners_.size())
    {
        fail_(
            std::to_string(ghostCells_.size()) + " ghost cells but " +
            std::to_string(owners_.size()) + " owners (one owner per ghost cell)"
        );
        bad_.assign(owners_.size(), 1);
        return;
    }
    if (nOwned_ >= static_cast<std::size_t>(INT_MAX))
    {
        fail_(std::to_string(nOwned_) + " owned cells exceed the local index range");
    }
    LocalIndex highest { -1 }; // the highest good ghost index
    // locals, so the loops read no member again (checkEntry may write bad_)
    const std::size_t ghostRange { static_cast<std::size_t>(INT_MAX) - nOwned };
    const std::size_t selfLimit { selfOwned ? nOwned : 0 }; // owner indices allowed on self
    const auto ranks = static_cast<unsigned>(nRanks);
    const LocalIndex* ghosts { ghostCells_.data() };
    const GhostOwner* owner { owners_.data() };
    const std::size_t n { owners_.size() };
    // no branch per entry (a correct list is the rule): flags and with &, so the compiler can
    // vectorise the loops
    unsigned allGood { 1 };
    for (std::size_t k { 0 }; k < n; ++k)
    {
        // unsigned compares: a negative value is out of range too
        allGood &= static_cast<unsigned>(
            (static_cast<std::size_t>(ghosts[k]) - nOwned <= ghostRange) &
            (static_cast<unsigned>(owner[k].rank) < ranks) & (owner[k].index >= 0) &
            ((owner[k].rank != self) | (static_cast<std::size_t>(owner[k].index) < selfLimit))
        );
        highest = std::max(highest, ghosts[k]);
    }
    unsigned ascending { 1 }; // owners in ascending rank need no grouping
    for (std::size_t k { 1 }; k < n; ++k)
    {
        ascending &= static_cast<unsigned>(owner[k - 1].rank <= owner[k].rank);
    }
    grouped_ = allGood != 0 && ascending != 0;
    if (allGood == 0)
    {
        highest = -1;
        for (std::size_t k { 0 }; k < n; ++k)
        {
            checkEntry(k); // marks and names the bad entries
            highest = isBad(k) ? highest : std::max(highest, ghosts[k]);
        }
    }
    else if (strictlyAscending(ghostCells_)) // no ghost listed twice
    {
        return;
    }
    checkDuplicates(highest);
}

/** @brief Leaves entry @p k out. */
void GhostListCheck::markBad(std::size_t k)
{
    if (bad_.empty())
    {
        bad_.assign(owners_.size(), 0);
    }
    bad_[k] = 1;
}

/** @brief One entry: ghost index not owned, owner rank in range, owner index plausible. */
void GhostListCheck::checkEntry(std::size_t k)
{
    const LocalIndex ghost { ghostCells_[k] };
    const GhostOwner owner { owners_[k] };
    const bool ghostOwned { ghost < 0 || static_cast<std::size_t>(ghost) < nOwned_ };
    const bool rankOut { owner.rank < 0 || owner.rank >= nRanks_ };
    const bool selfOut { owner.rank == self_ && !selfOwned_ };
    const bool indexOut { owner.index < 0 || (owner.rank == self_ &&
                                              static_cast<std::size_t>(owner.index) >= nOwned_) };
    if (!ghostOwned && !rankOut && !selfOut && !indexOut)
    {
        return;
    }
    markBad(k);
    const std::string entry { "entry " + std::to_string(k) + " (ghost cell " +
                              std::to_string(ghost) + ")" };
    if (ghostOwned)
    {
        fail_(
            entry + ": the ghost index is " +
            (ghost < 0 ? std::string("negative")
                       : "an owned cell (this rank owns 0.." + std::to_string(nOwned_ - 1) + ")")
        );
    }
    else if (rankOut)
    {
        fail_(
            entry + ": owner rank " + std::to_string(owner.rank) + " is out of range (ranks 0.." +
            std::to_string(nRanks_ - 1) + ")"
        );
    }
    else if (selfOut)
    {
        fail_(
            entry + ": owned by this rank itself (owner index " + std::to_string(owner.index) +
            "); list a cell this rank owns by its owned index, not as a ghost"
        );
    }
    else
    {
        fail_(
            entry + ": owner index " + std::to_string(owner.index) + " on rank " +
            std::to_string(owner.rank) + " is " +
            (owner.index < 0 ? std::string("negative")
                             : "not below this rank's " + std::to_string(nOwned_) + " owned cells")
        );
    }
}

/**
 * @brief A ghost index listed twice (a bit per index over the ghost range up to @p highest, the
 * highest good one, else a sort).
 */
void GhostListCheck::checkDuplicates(LocalIndex highest)
{
    if (highest < 0)
    {
        return;
    }
    const std::size_t range { static_cast<std::size_t>(highest) + 1 - nOwned_ };
    const auto twice = [this](std::size_t first, std::size_t k)
    {
        fail_(
            "ghost cell " + std::to_string(ghostCells_[k]) + " is listed twice (entries " +
            std::to_string(first) + " and " + std::to_string(k) + ")"
        );
        markBad(k);
    };
    if (range <= 64 * ghostCells_.size() + 65536)
    {
        std::vector<std::uint64_t> seen((range + 63) / 64, 0);
        const LocalIndex* ghosts { ghostCells_.data() };
        const std::size_t nOwned { nOwned_ };
        const char* bad { bad_.empty() ? nullptr : bad_.data() }; // entries after k: unchanged
        for (std::size_t k { 0 }; k < ghostCells_.size(); ++k)
        {
            if (bad != nullptr && bad[k] != 0)
            {
                continue;
            }
            const auto bit = static_cast<std::size_t>(ghosts[k]) - nOwned;
            const std::uint64_t mask { std::uint64_t { 1 } << (bit & 63U) };
            if ((seen[bit >> 6U] & mask) != 0)
            {
                std::size_t first { 0 }; // an error: find the entry that listed it first
                while (isBad(first) || ghosts[first] != ghosts[k])
                {
                    ++first;
                }
                twice(first, k);
                bad = bad_.data();
                continue;
            }
            seen[bit >> 6U] |= mask;
        }
        return;
    }
    std::vector<std::pair<LocalIndex, std::size_t>> sorted;
    sorted.reserve(ghostCells_.size());
    for (std::size_t k { 0 }; k < ghostCells_.size(); ++k)
    {
        if (!isBad(k))
        {
            sorted.emplace_back(ghostCells_[k], k);
        }
    }
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t j { 1 }; j < sorted.size(); ++j)
    {
        if (sorted[j].first == sorted[j - 1].first)
        {
            twice(sorted[j - 1].second, sorted[j].second);
        }
    }
}

} // namespace fieldsync::halo::detail
