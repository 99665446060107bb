// SPDX-License-Identifier: MIT
#include "fieldsync/partition/cellGraph.hpp"

#include "fieldsync/core/error.hpp"

#include <algorithm>
#include <string>

namespace fieldsync::partition
{

CellGraph::CellGraph(
    std::vector<GlobalIndex> globalIds,
    std::vector<std::size_t> offsets,
    std::vector<GlobalIndex> adjacency,
    std::source_location where
)
    : globalIds_(std::move(globalIds)), offsets_(std::move(offsets)),
      adjacency_(std::move(adjacency))
{
    FIELDSYNC_CHECK_AT(
        offsets_.size() == globalIds_.size() + 1,
        "CellGraph: offsets has " + std::to_string(offsets_.size()) + " entries for " +
            std::to_string(globalIds_.size()) + " cells (needs cells + 1)",
        where
    );
    FIELDSYNC_CHECK_AT(
        offsets_.front() == 0 && offsets_.back() == adjacency_.size(),
        "CellGraph: offsets must start at 0 and end at the adjacency size " +
            std::to_string(adjacency_.size()) + ", got " + std::to_string(offsets_.front()) +
            " .. " + std::to_string(offsets_.back()),
        where
    );
    for (std::size_t i { 0 }; i < globalIds_.size(); ++i)
    {
        const GlobalIndex id { globalIds_[i] };
        FIELDSYNC_CHECK_AT(
            id >= 0,
            "CellGraph: cell in row " + std::to_string(i) + " has negative global id " +
                std::to_string(id),
            where
        );
        FIELDSYNC_CHECK_AT(
            offsets_[i] <= offsets_[i + 1],
            "CellGraph: offsets decrease at cell " + std::to_string(id),
            where
        );
        for (const GlobalIndex n : neighbours(i))
        {
            FIELDSYNC_CHECK_AT(
                n >= 0,
                "CellGraph: cell " + std::to_string(id) + " has negative neighbour id " +
                    std::to_string(n),
                where
            );
            FIELDSYNC_CHECK_AT(
                n != id,
                "CellGraph: cell " + std::to_string(id) + " lists itself as neighbour",
                where
            );
        }
    }
}

CellGraph CellGraph::global(
    std::vector<std::size_t> offsets, std::vector<GlobalIndex> adjacency, std::source_location where
)
{
    const std::size_t n { offsets.empty() ? 0 : offsets.size() - 1 };
    std::vector<GlobalIndex> ids(n);
    for (std::size_t i { 0 }; i < n; ++i)
    {
        ids[i] = static_cast<GlobalIndex>(i);
    }
    return CellGraph(std::move(ids), std::move(offsets), std::move(adjacency), where);
}

bool CellGraph::isGlobal() const noexcept
{
    for (std::size_t i { 0 }; i < globalIds_.size(); ++i)
    {
        if (globalIds_[i] != static_cast<GlobalIndex>(i))
        {
            return false;
        }
    }
    return true;
}

void CellGraph::checkSymmetric(std::source_location where) const
{
    FIELDSYNC_CHECK_AT(
        isGlobal(), "CellGraph::checkSymmetric: needs a whole-mesh graph (row i = cell i)", where
    );
    const auto n = static_cast<GlobalIndex>(nCells());
    for (std::size_t i { 0 }; i < nCells(); ++i)
    {
        const auto a = static_cast<GlobalIndex>(i);
        for (const GlobalIndex b : neighbours(i))
        {
            FIELDSYNC_CHECK_AT(
                b < n,
                "CellGraph: cell " + std::to_string(a) + " has neighbour " + std::to_string(b) +
                    " that is not a cell of the graph (" + std::to_string(n) + " cells)",
                where
            );
            const auto back = neighbours(static_cast<std::size_t>(b));
            FIELDSYNC_CHECK_AT(
                std::find(back.begin(), back.end(), a) != back.end(),
                "CellGraph: asymmetric graph: cell " + std::to_string(a) + " lists neighbour " +
                    std::to_string(b) + " but cell " + std::to_string(b) + " does not list " +
                    std::to_string(a),
                where
            );
        }
    }
}

std::size_t CellGraph::memoryBytes() const noexcept
{
    return globalIds_.capacity() * sizeof(GlobalIndex) + offsets_.capacity() * sizeof(std::size_t) +
           adjacency_.capacity() * sizeof(GlobalIndex);
}

} // namespace fieldsync::partition
