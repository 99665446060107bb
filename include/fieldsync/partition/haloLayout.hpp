// SPDX-License-Identifier: MIT
#pragma once

#include "fieldsync/halo/rankSimplexCommMap.hpp"
#include "fieldsync/partition/cellGraph.hpp"

#include <cstddef>
#include <span>
#include <vector>

namespace fieldsync::partition
{

/**
 * @brief One rank's view of a partitioned mesh, as HaloBuilder makes it: the local numbering,
 * the halo maps, and the owned cells' neighbours in local indices.
 *
 * Local numbering: the owned cells first, in the order the rank gave them (0 .. nOwned()-1),
 * then the ghost cells grouped by owning rank (ascending) and, within one owner, ordered by
 * global id. Each neighbour's ghosts are therefore one contiguous range, which lets the
 * Communicator receive straight into the field. The send map lists, per neighbour, the owned
 * cells that neighbour needs, ordered by global id: the same order as that neighbour's receive
 * range, so both sides agree without further messages.
 *
 * Memory: every array here is sized by the owned cells, the ghost cells or the neighbours,
 * never by the communicator size or the global mesh (see memoryBytes()).
 */
class HaloLayout
{
public:
    /** @brief An empty layout (no cells). */
    HaloLayout() = default;

    /**
     * @brief Assembles a layout (HaloBuilder does this; the arrays are taken as they are).
     * @param nOwned number of owned cells
     * @param globalIds global id of each local cell, owned then ghosts
     * @param ghostOwners owning rank of each ghost cell
     * @param ghostLayers halo layer (1 = face neighbour of an owned cell, 2, ...) of each ghost
     * @param ownedOffsets CSR offsets of the owned cells' neighbours
     * @param ownedNeighbours the owned cells' neighbours as local indices, input order
     * @param sendMap per neighbour: owned cells it needs
     * @param receiveMap per neighbour: ghost cells its values land in
     * @param directoryEntries owner-directory entries this rank kept while building (0 if none)
     * @param interior the owned cells without a ghost neighbour, ascending, when the caller has
     * split the cells (HaloBuilder notes the boundary cells as it numbers them); left empty, the
     * constructor finds the split from the neighbours
     * @param boundary the owned cells with a ghost neighbour, ascending (with @p interior,
     * @p nOwned cells), or empty
     */
    HaloLayout(
        std::size_t nOwned,
        std::vector<GlobalIndex> globalIds,
        std::vector<int> ghostOwners,
        std::vector<int> ghostLayers,
        std::vector<std::size_t> ownedOffsets,
        std::vector<LocalIndex> ownedNeighbours,
        halo::RankSimplexCommMap sendMap,
        halo::RankSimplexCommMap receiveMap,
        std::size_t directoryEntries,
        std::vector<LocalIndex> interior = {},
        std::vector<LocalIndex> boundary = {}
    );

    /** @brief Number of owned cells (local indices 0 .. nOwned()-1). */
    [[nodiscard]] std::size_t nOwned() const noexcept { return nOwned_; }

    /** @brief Number of ghost cells (local indices nOwned() .. nLocal()-1). */
    [[nodiscard]] std::size_t nGhost() const noexcept { return globalIds_.size() - nOwned_; }

    /** @brief Owned plus ghost cells: the size a field on this layout needs. */
    [[nodiscard]] std::size_t nLocal() const noexcept { return globalIds_.size(); }

    /** @brief Global id of each local cell. */
    [[nodiscard]] std::span<const GlobalIndex> globalIds() const noexcept { return globalIds_; }

    /** @brief Owning rank of ghost cell nOwned()+k at position k. */
    [[nodiscard]] std::span<const int> ghostOwners() const noexcept { return ghostOwners_; }

    /** @brief Halo layer of ghost cell nOwned()+k at position k (1 for face neighbours). */
    [[nodiscard]] std::span<const int> ghostLayers() const noexcept { return ghostLayers_; }

    /** @brief Local indices of the neighbours of owned cell @p i, in the input order. */
    [[nodiscard]] std::span<const LocalIndex> neighbours(std::size_t i) const
    {
        return { ownedNeighbours_.data() + ownedOffsets_[i],
                 ownedOffsets_[i + 1] - ownedOffsets_[i] };
    }

    /** @brief CSR offsets of the owned cells' local neighbours. */
    [[nodiscard]] std::span<const std::size_t> ownedOffsets() const noexcept
    {
        return ownedOffsets_;
    }

    /** @brief The owned cells' neighbours as local indices. */
    [[nodiscard]] std::span<const LocalIndex> ownedNeighbours() const noexcept
    {
        return ownedNeighbours_;
    }

    /** @brief Owned cells whose neighbours are all owned: computable before the halo arrives. */
    [[nodiscard]] std::span<const LocalIndex> interiorCells() const noexcept { return interior_; }

    /** @brief Owned cells with at least one ghost neighbour: need the halo. */
    [[nodiscard]] std::span<const LocalIndex> boundaryCells() const noexcept { return boundary_; }

    /** @brief Per neighbour rank: the owned cells it needs (ordered by global id). */
    [[nodiscard]] const halo::RankSimplexCommMap& sendMap() const noexcept { return sendMap_; }

    /** @brief Per neighbour rank: the ghost cells its values land in (ordered by global id). */
    [[nodiscard]] const halo::RankSimplexCommMap& receiveMap() const noexcept
    {
        return receiveMap_;
    }

    /**
     * @brief The owned cells with their neighbours as global ids, layout order: the graph
     * this layout was built from (the input Migration and Rebalancer take).
     */
    [[nodiscard]] CellGraph ownedGraph() const;

    /** @brief Owner-directory entries this rank kept during the build (set-up memory). */
    [[nodiscard]] std::size_t directoryEntries() const noexcept { return directoryEntries_; }

    /** @brief Bytes held by this layout's arrays (not counting the maps' device copies). */
    [[nodiscard]] std::size_t memoryBytes() const noexcept;

private:
    std::size_t nOwned_ { 0 };                    /**< owned cells */
    std::vector<GlobalIndex> globalIds_;          /**< local -> global id */
    std::vector<int> ghostOwners_;                /**< owner of each ghost */
    std::vector<int> ghostLayers_;                /**< layer of each ghost */
    std::vector<std::size_t> ownedOffsets_ { 0 }; /**< CSR offsets, owned cells */
    std::vector<LocalIndex> ownedNeighbours_;     /**< CSR neighbours, local indices */
    std::vector<LocalIndex> interior_;            /**< owned cells without ghost neighbours */
    std::vector<LocalIndex> boundary_;            /**< owned cells with a ghost neighbour */
    halo::RankSimplexCommMap sendMap_;            /**< send direction */
    halo::RankSimplexCommMap receiveMap_;         /**< receive direction */
    std::size_t directoryEntries_ { 0 };          /**< set-up directory size */
};

} // namespace fieldsync::partition
