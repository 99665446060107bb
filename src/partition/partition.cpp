// SPDX-License-Identifier: MIT
#include "fieldsync/partition/partition.hpp"

#include "fieldsync/core/error.hpp"

#include <string>

namespace fieldsync::partition
{

Partition::Partition(std::vector<int> parts, int nParts, std::source_location where)
    : parts_(std::move(parts)), nParts_(nParts)
{
    FIELDSYNC_CHECK_AT(
        nParts_ >= 1,
        "Partition: number of parts must be >= 1, got " + std::to_string(nParts_),
        where
    );
    for (std::size_t i { 0 }; i < parts_.size(); ++i)
    {
        FIELDSYNC_CHECK_AT(
            parts_[i] >= 0 && parts_[i] < nParts_,
            "Partition: cell " + std::to_string(i) + " has part " + std::to_string(parts_[i]) +
                ", outside [0, " + std::to_string(nParts_) + ")",
            where
        );
    }
}

Partition Partition::block(std::size_t nCells, int nParts)
{
    FIELDSYNC_CHECK(
        nParts >= 1, "Partition::block: nParts must be >= 1, got " + std::to_string(nParts)
    );
    std::vector<int> parts(nCells);
    const auto p = static_cast<std::size_t>(nParts);
    for (std::size_t i { 0 }; i < nCells; ++i)
    {
        parts[i] = static_cast<int>(i * p / nCells);
    }
    return Partition(std::move(parts), nParts);
}

void Partition::checkFits(const CellGraph& graph, std::source_location where) const
{
    FIELDSYNC_CHECK_AT(
        parts_.size() == graph.nCells(),
        "Partition: partition vector has " + std::to_string(parts_.size()) +
            " entries but the graph has " + std::to_string(graph.nCells()) + " cells",
        where
    );
}

} // namespace fieldsync::partition
