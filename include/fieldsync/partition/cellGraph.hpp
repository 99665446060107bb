// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <source_location>
#include <span>
#include <vector>

namespace fieldsync::partition
{

/** @brief A cell's id in the whole (global) mesh. 64 bits, so meshes beyond 2^31 cells fit. */
using GlobalIndex = std::int64_t;

/**
 * @brief Cells and their face neighbours in compressed sparse row form, with global ids.
 *
 * Row i is the cell with global id globalId(i); its neighbours (global ids) are
 * neighbours(i) = adjacency()[offsets()[i] .. offsets()[i+1]). A graph may hold the whole mesh
 * (then the ids are 0..n-1 in row order, see isGlobal()) or one rank's owned cells, whose
 * neighbours may live on other ranks.
 *
 * The constructor checks the structure (offsets, sizes, negative ids, self-neighbours) and
 * throws fieldsync::Error naming the cell; symmetry of a whole-mesh graph is checked by
 * checkSymmetric().
 */
class CellGraph
{
public:
    /** @brief An empty graph (no cells). */
    CellGraph() = default;

    /**
     * @brief A graph of the cells @p globalIds with CSR @p offsets (size n+1, starting at 0,
     * non-decreasing) into @p adjacency (neighbour global ids).
     * @throws Error naming the cell for a negative id, a cell listing itself, or bad offsets.
     */
    CellGraph(
        std::vector<GlobalIndex> globalIds,
        std::vector<std::size_t> offsets,
        std::vector<GlobalIndex> adjacency,
        std::source_location where = std::source_location::current()
    );

    /** @brief A whole-mesh graph: row i is cell i (global ids 0..n-1). */
    static CellGraph global(
        std::vector<std::size_t> offsets,
        std::vector<GlobalIndex> adjacency,
        std::source_location where = std::source_location::current()
    );

    /** @brief Number of cells (rows). */
    [[nodiscard]] std::size_t nCells() const noexcept { return globalIds_.size(); }

    /** @brief Global id of row @p i. */
    [[nodiscard]] GlobalIndex globalId(std::size_t i) const { return globalIds_[i]; }

    /** @brief The neighbours (global ids) of row @p i. */
    [[nodiscard]] std::span<const GlobalIndex> neighbours(std::size_t i) const
    {
        return { adjacency_.data() + offsets_[i], offsets_[i + 1] - offsets_[i] };
    }

    /** @brief All global ids, row order. */
    [[nodiscard]] std::span<const GlobalIndex> globalIds() const noexcept { return globalIds_; }

    /** @brief CSR offsets, size nCells()+1. */
    [[nodiscard]] std::span<const std::size_t> offsets() const noexcept { return offsets_; }

    /** @brief CSR neighbour ids. */
    [[nodiscard]] std::span<const GlobalIndex> adjacency() const noexcept { return adjacency_; }

    /** @brief Whether row i has global id i for every row (a whole-mesh graph). */
    [[nodiscard]] bool isGlobal() const noexcept;

    /**
     * @brief For a whole-mesh graph: every neighbour id is a cell of the graph and every edge
     * a-b is listed by both a and b.
     * @throws Error naming the first offending cell and neighbour.
     */
    void checkSymmetric(std::source_location where = std::source_location::current()) const;

    /** @brief Bytes held by the three arrays (for memory accounting). */
    [[nodiscard]] std::size_t memoryBytes() const noexcept;

private:
    std::vector<GlobalIndex> globalIds_;     /**< global id of each row */
    std::vector<std::size_t> offsets_ { 0 }; /**< CSR row offsets */
    std::vector<GlobalIndex> adjacency_;     /**< neighbour global ids */
};

} // namespace fieldsync::partition
