// SPDX-License-Identifier: MIT
#pragma once

#include "fieldsync/partition/cellGraph.hpp"

#include <source_location>
#include <span>
#include <vector>

#include <mpi.h>

namespace fieldsync::partition
{

/**
 * @brief A distributed directory of cell owners: which rank owns global id g.
 *
 * The entry of g lives on its home rank g / ceil(N / P), where N is one more than the largest
 * global id and P the communicator size, so each rank keeps at most ceil(N / P) entries and
 * nothing per rank of the communicator. For dense ids (0..N-1) the memory per rank is the
 * local share of the mesh.
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

    /** @brief Number of directory entries this rank keeps (ceil(N / P) or fewer). */
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
    int rank_ { 0 };              /**< this rank */
    GlobalIndex idBound_ { 0 };   /**< N */
    GlobalIndex blockSize_ { 1 }; /**< ceil(N / P) */
    std::vector<int> entries_;    /**< owners of ids [rank_*blockSize_, ...), -1 when none */
};

} // namespace fieldsync::partition
