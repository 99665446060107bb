// SPDX-License-Identifier: MIT
#pragma once

#include "fieldsync/core/localIndex.hpp"
#include "fieldsync/halo/blockShape.hpp"
#include "fieldsync/halo/rankSimplexCommMap.hpp"
#include "fieldsync/mpi/cartesianTopology.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <source_location>
#include <vector>

namespace fieldsync::halo
{

/** @brief Which ghost cells a StructuredBlock's halo fills. */
enum class BlockGhosts
{
    Faces, /**< across faces only (2d neighbours); edge and corner ghosts are left alone */
    All    /**< faces, edges and corners: the full 3^d-1 neighbourhood */
};

/**
 * @brief This rank's block of a global nx x ny x nz box of cells on a CartesianTopology of 1, 2
 * or 3 dimensions, with the send and receive maps of its halo.
 *
 * Split: dimension d < topology.ndims() is split into dims[d] near-equal parts (the first
 * N % dims[d] ranks get one cell more); later dimensions are not split. Every part must have at
 * least `width` cells (an Error otherwise), so ghosts come from the nearest neighbours only.
 *
 * Padded array: the local array has extent(d) + 2 width cells in each split dimension (ghosts on
 * both sides) and extent(d) in the others. Cell (i, j, k), local coordinates counted from the
 * first owned cell (ghosts are -width..-1 and extent..extent+width-1), is index(i, j, k), its
 * linear index in LayoutRight or LayoutLeft order. A contiguous rank-3 Kokkos::View of
 * paddedExtent(0..2) in that layout is a field the Communicator exchanges with these maps.
 *
 * Maps: for each neighbour offset (faces, or all 3^d-1 with BlockGhosts::All; periodic
 * dimensions wrap, off-grid neighbours have no cells) the send list holds the owned cells the
 * neighbour needs and the receive list the ghost cells it fills. Both sides enumerate the same
 * global box in the same order (first dimension slowest), and several offsets that reach the
 * same rank (small periodic grids, a rank its own neighbour) are concatenated in matching order
 * (sends by ascending offset, receives by descending offset). The ranks are those of
 * topology.environment(): build the Communicator on it.
 */
class StructuredBlock
{
public:
    /**
     * @brief This rank's block of the global box @p cells on @p topology with a halo of @p width.
     * @throws Error when the topology has more than 3 dimensions, a global extent or @p width
     * is negative, a split part has fewer than @p width cells, or the padded array has more
     * cells than a LocalIndex addresses.
     */
    StructuredBlock(
        const mpi::CartesianTopology& topology,
        std::array<std::int64_t, 3> cells,
        int width,
        BlockGhosts ghosts = BlockGhosts::All,
        BlockOrder order = BlockOrder::LayoutRight,
        std::source_location where = std::source_location::current()
    );

    /** @brief The global extent of dimension @p d. */
    [[nodiscard]] std::int64_t globalCells(int d) const { return global_.at(unsigned(d)); }

    /** @brief The global index of the first owned cell in dimension @p d. */
    [[nodiscard]] std::int64_t start(int d) const { return start_.at(unsigned(d)); }

    /** @brief The number of owned cells in dimension @p d. */
    [[nodiscard]] std::int64_t extent(int d) const { return extent_.at(unsigned(d)); }

    /** @brief Ghost layers on each side in dimension @p d: width() if split, else 0. */
    [[nodiscard]] int padding(int d) const { return padding_.at(unsigned(d)); }

    /** @brief extent(d) + 2 padding(d): the padded array's extent in dimension @p d. */
    [[nodiscard]] std::int64_t paddedExtent(int d) const { return extent(d) + 2 * padding(d); }

    /** @brief The number of cells of the padded array. */
    [[nodiscard]] std::size_t paddedSize() const noexcept;

    /** @brief The halo width. */
    [[nodiscard]] int width() const noexcept { return width_; }

    /** @brief The cell order of index(). */
    [[nodiscard]] BlockOrder order() const noexcept { return order_; }

    /** @brief The linear index of local cell (@p i, @p j, @p k) (see the class documentation). */
    [[nodiscard]] LocalIndex index(std::int64_t i, std::int64_t j, std::int64_t k) const noexcept;

    /** @brief For each neighbour rank, the owned cells it receives. */
    [[nodiscard]] const RankSimplexCommMap& sendMap() const noexcept { return sendMap_; }

    /** @brief For each neighbour rank, the ghost cells it fills. */
    [[nodiscard]] const RankSimplexCommMap& receiveMap() const noexcept { return receiveMap_; }

private:
    /** @brief A box of local cells, [lo, hi) per dimension. */
    struct Box
    {
        std::array<std::int64_t, 3> lo { 0, 0, 0 }; /**< first cell */
        std::array<std::int64_t, 3> hi { 0, 0, 0 }; /**< one past the last cell */
    };

    void split(const mpi::CartesianTopology& topology, const std::source_location& where);
    [[nodiscard]] Box box(const std::vector<int>& offset, bool ghostSide) const;
    void append(std::vector<LocalIndex>& cells, const Box& b) const;
    void buildMaps(const mpi::CartesianTopology& topology, BlockGhosts ghosts);

    std::array<std::int64_t, 3> global_ { 0, 0, 0 }; /**< global extents */
    std::array<std::int64_t, 3> start_ { 0, 0, 0 };  /**< first owned global cell */
    std::array<std::int64_t, 3> extent_ { 0, 0, 0 }; /**< owned cells */
    std::array<int, 3> padding_ { 0, 0, 0 };         /**< ghost layers per side */
    int width_ { 0 };                                /**< halo width */
    BlockOrder order_ { BlockOrder::LayoutRight };   /**< cell order */
    RankSimplexCommMap sendMap_;                     /**< owned cells per neighbour */
    RankSimplexCommMap receiveMap_;                  /**< ghost cells per neighbour */
};

} // namespace fieldsync::halo
