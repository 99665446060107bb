// SPDX-License-Identifier: MIT
// Internal: the one check of a ghost list's entries, for halo::GhostList and
// partition::layoutFromGhosts() (the layer above, which includes it from src/halo).
#pragma once

#include "fieldsync/core/localIndex.hpp"
#include "fieldsync/halo/ghostList.hpp"

#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace fieldsync::halo::detail
{

/**
 * @brief What one rank can check alone of a ghost list: the lists' lengths, each ghost index
 * (not negative, not an owned cell, none twice), each owner's rank (in range; this rank itself
 * only where @p selfOwned allows it, with an owner index below @p nOwned) and index (not
 * negative). Each bad entry's text (entry, ghost index, bad value) goes to @p fail, which adds
 * the caller's name and rank. A good list costs one pass without a branch per entry.
 */
class GhostListCheck
{
public:
    /** @brief Checks @p ghostCells and @p owners of rank @p self of @p nRanks. */
    GhostListCheck(
        std::size_t nOwned,
        std::span<const LocalIndex> ghostCells,
        std::span<const GhostOwner> owners,
        int self,
        int nRanks,
        bool selfOwned,
        std::function<void(const std::string&)> fail
    );

    /** @brief Whether entry @p k is bad (left out of the exchange). */
    [[nodiscard]] bool isBad(std::size_t k) const noexcept { return !bad_.empty() && bad_[k] != 0; }

    /** @brief Whether any entry is bad. */
    [[nodiscard]] bool anyBad() const noexcept { return !bad_.empty(); }

    /** @brief Whether every entry is good and the owners' ranks ascend. */
    [[nodiscard]] bool grouped() const noexcept { return grouped_; }

private:
    void checkEntry(std::size_t k);
    void checkDuplicates(LocalIndex highest);
    void markBad(std::size_t k);

    std::size_t nOwned_;                           /**< owned cells here */
    std::span<const LocalIndex> ghostCells_;       /**< the caller's ghost indices */
    std::span<const GhostOwner> owners_;           /**< the caller's owners */
    int self_;                                     /**< this rank */
    int nRanks_;                                   /**< the ranks */
    bool selfOwned_;                               /**< whether this rank may own a ghost */
    std::function<void(const std::string&)> fail_; /**< the caller's error sink */
    std::vector<char> bad_;                        /**< bad entries (empty: none) */
    bool grouped_ { false };                       /**< all good, owners' ranks ascending */
};

} // namespace fieldsync::halo::detail
