// SPDX-License-Identifier: MIT
#pragma once

#include "fieldsync/partition/cellGraph.hpp"

#include <source_location>
#include <span>
#include <unordered_map>
#include <vector>

#include <mpi.h>

namespace fieldsync::partition
{

/**
 * @brief A distributed directory of cell owners: which rank owns global id g.
 *
 * The entry of g lives on its home rank g / ceil(N / P), where N is one more than the largest
 * global id and P the communicator size: homes are contiguous blocks of the id range, so a
 * rank's contiguous ids go to few homes. A home keeps one entry per id registered there (a hash
 * map), so its memory and set-up time follow the number of cells, not the id range: sparse ids
 * (hashed, 64-bit, a mesh generator's numbering) cost what dense ones do, and nothing is kept
 * per rank of the communicator. For dense ids (0..N-1) a home keeps at most ceil(N / P) entries.
 *
 * Registration and queries are answered exchanges (mpi::answeredExchange()): each rank sends
 * each home rank its ids, the home answers each message, and one agreement closes the step. The
 * messages travel on the library's private duplicate of the communicator, with tags of the
 * library's allocator, so the application's own messages on it never meet them.
 */
class OwnerDirectory
{
public:
    /**
     * @brief Collective over @p comm: every rank registers the ids it owns.
     * @throws Error (on every rank) naming a cell that two ranks claim.
     */
    OwnerDirectory(
        MPI_Comm comm,
        std::span<const GlobalIndex> ownedIds,
        std::source_location where = std::source_location::current()
    );

    /**
     * @brief Collective: the owner rank of each id in @p ids, -1 for an id no rank owns (the
     * caller decides how to report it).
     */
    [[nodiscard]] std::vector<int> owners(
        std::span<const GlobalIndex> ids,
        std::source_location where = std::source_location::current()
    ) const;

    /**
     * @brief Number of directory entries this rank keeps: the ids registered at this home (all
     * ranks' entries sum to the number of registered ids, whatever their range).
     */
    [[nodiscard]] std::size_t localEntries() const noexcept { return entries_.size(); }

    /** @brief One more than the largest registered id (N). */
    [[nodiscard]] GlobalIndex idBound() const noexcept { return idBound_; }

private:
    /** @brief Home rank of id @p id. */
    [[nodiscard]] int home(GlobalIndex id) const noexcept
    {
        return static_cast<int>(id / blockSize_);
    }

    MPI_Comm comm_;               /**< the private duplicate of the caller's communicator */
    GlobalIndex idBound_ { 0 };   /**< N */
    GlobalIndex blockSize_ { 1 }; /**< ceil(N / P) */
    std::unordered_map<GlobalIndex, int> entries_; /**< owner of each id registered here */
};

} // namespace fieldsync::partition
