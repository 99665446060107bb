// SPDX-License-Identifier: MIT
#pragma once

#include "fieldsync/core/localIndex.hpp"
#include "fieldsync/halo/ghostList.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"
#include "fieldsync/partition/cellGraph.hpp"
#include "fieldsync/partition/haloLayout.hpp"

#include <cstddef>
#include <source_location>
#include <span>

namespace fieldsync::partition
{

/**
 * @brief Collective: the HaloLayout of a mesh whose halo was described as a ghost list in the
 * caller's own local numbering (what halo::GhostList takes), so that a code that never built a
 * CellGraph can call Rebalancer::rebalance() and Migration directly, without HaloBuilder's
 * ghost discovery (no owner directory, no symmetry exchange).
 *
 * The caller's numbering: owned cells 0 .. nOwned-1 (nOwned = @p ownedIds.size()), ghost cells
 * at the indices @p ghostCells, each owned by @p ghostOwners (rank and the owner's local index
 * of the cell, as GhostList takes them). The layout keeps the owned cells where they are (owned
 * cell i of the layout is the caller's cell i, so the caller's fields and per-cell arrays can be
 * passed to Rebalancer::rebalance() and Migration as they are, and Rebalanced::origins names
 * the caller's indices), and numbers the ghosts as every HaloLayout does: grouped by owner
 * (ascending), by global id within one owner, each remote cell once (two ghost indices of the
 * same remote cell become one layout ghost). Ghosts that an owned cell lists as a neighbour
 * are of layer 1, the others of layer 2 (the ghosts' own neighbours are not known here).
 *
 * One answered exchange (mpi::answeredExchange(), as GhostList's): each rank asks the owners
 * of its ghosts for their global ids, each owner answers them and learns which of its cells
 * each asker needs (the layout's send map, by global id like the asker's receive range), and
 * the agreement that closes the exchange says whether any rank found bad input. First
 * the ranks agree that they all make this call (mpi::agreeOnSetUp(), in every mode).
 *
 * Not checked: that the adjacency is symmetric across ranks and that every cell is owned by
 * exactly one rank; HaloBuilder checks both when Rebalancer rebuilds the layout after a
 * migration.
 *
 * @param env the ranks (the layout's maps are for its size)
 * @param ownedIds the global id of each owned cell (caller's order, each >= 0, none twice)
 * @param ghostCells the caller's local index of each ghost (each >= the owned count, none twice)
 * @param ghostOwners the owner of each ghost, entry by entry with @p ghostCells: a rank other
 * than this one, in [0, sizeRank()), and a local index below that rank's owned count
 * @param offsets CSR offsets of the owned cells' neighbours (ownedIds.size() + 1 entries from 0)
 * @param neighbours the owned cells' neighbours as the caller's local indices (an owned cell
 * other than the cell itself, or one of @p ghostCells)
 * @param where the call site every Error names
 * @return the layout: owned cells as given, then the ghosts (see above), with their owners,
 * layers and global ids, the owned cells' neighbours, and the send and receive maps
 * @throws Error on every rank, naming @p where, when any rank's input is bad: the rank that found
 * it names the entry and the value (a ghost owned by this rank itself, an owner rank out of
 * range, an owner index not below the owner's count, a neighbour that is neither owned nor a
 * ghost, lengths that do not match, an id or a ghost index twice), the others name that rank.
 */
[[nodiscard]] HaloLayout layoutFromGhosts(
    const mpi::MPIEnvironment& env,
    std::span<const GlobalIndex> ownedIds,
    std::span<const LocalIndex> ghostCells,
    std::span<const halo::GhostOwner> ghostOwners,
    std::span<const std::size_t> offsets,
    std::span<const LocalIndex> neighbours,
    std::source_location where = std::source_location::current()
);

} // namespace fieldsync::partition
