// SPDX-License-Identifier: MIT
#pragma once

#include "fieldsync/partition/cellGraph.hpp"

#include <source_location>
#include <span>
#include <vector>

namespace fieldsync::partition
{

/**
 * @brief Which part (rank) each cell of a whole-mesh graph belongs to: a checked partition
 * vector. Made by MetisPartitioner, by block(), or from a vector the user gives.
 */
class Partition
{
public:
    /**
     * @brief Wraps @p parts (one part id per cell) for @p nParts parts.
     * @throws Error naming the first cell whose part is outside [0, nParts), or for nParts < 1.
     */
    Partition(
        std::vector<int> parts,
        int nParts,
        std::source_location where = std::source_location::current()
    );

    /** @brief Contiguous blocks of cells in id order, sizes differing by at most one. */
    static Partition block(std::size_t nCells, int nParts);

    /** @brief Number of parts. */
    [[nodiscard]] int nParts() const noexcept { return nParts_; }

    /** @brief Number of cells. */
    [[nodiscard]] std::size_t nCells() const noexcept { return parts_.size(); }

    /** @brief Part of cell @p i. */
    [[nodiscard]] int partOf(std::size_t i) const { return parts_[i]; }

    /** @brief The partition vector. */
    [[nodiscard]] std::span<const int> parts() const noexcept { return parts_; }

    /**
     * @brief Checks that the partition fits @p graph (one entry per cell).
     * @throws Error giving both lengths.
     */
    void checkFits(
        const CellGraph& graph, std::source_location where = std::source_location::current()
    ) const;

private:
    std::vector<int> parts_; /**< part id per cell */
    int nParts_ { 1 };       /**< number of parts */
};

} // namespace fieldsync::partition
