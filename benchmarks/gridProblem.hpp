// SPDX-License-Identifier: MIT
// The benchmarks' partitioned meshes: a 2-D 5-point or 3-D 7-point grid graph, METIS-partitioned,
// and one rank's share of it with its ghost list (setup_bench, peer_bench).
#pragma once

#include "fieldsync/halo/ghostList.hpp"
#include "fieldsync/partition/cellGraph.hpp"
#include "fieldsync/partition/metisPartitioner.hpp"

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace fieldsync_bench
{
using fieldsync::LocalIndex;
using fieldsync::partition::GlobalIndex;

/** @brief One rank's share of a partitioned grid graph, and its ghost list. */
struct GridProblem
{
    int side { 0 };                                       /**< grid side */
    fieldsync::partition::CellGraph owned;                /**< owned cells and their neighbours */
    std::vector<int> neighbourOwners;                     /**< owner of each adjacency entry */
    std::vector<GlobalIndex> ghostIds;                    /**< ghosts by (owner, global id) */
    std::vector<LocalIndex> ghostCells;                   /**< nOwned + k */
    std::vector<fieldsync::halo::GhostOwner> ghostOwners; /**< owner and index there */
    std::size_t nOwned { 0 };                             /**< owned cells */
};

/**
 * @brief The graph of a side^dims grid (dims 2: 5-point, dims 3: 7-point; neighbours in the order
 * -z, -y, -x, +x, +y, +z), METIS-partitioned (seed 1) over @p nRanks ranks. Each rank owns its
 * cells in ascending global id; its ghosts are ordered by (owner, global id).
 */
inline GridProblem makeGridProblem(int dims, int side, int me, int nRanks)
{
    const auto s = static_cast<GlobalIndex>(side);
    const GlobalIndex layers { dims == 3 ? s : GlobalIndex { 1 } };
    const GlobalIndex n { s * s * layers };
    std::vector<std::size_t> offsets { 0 };
    std::vector<GlobalIndex> adjacency;
    adjacency.reserve(static_cast<std::size_t>(2 * dims * n));
    for (GlobalIndex k { 0 }; k < layers; ++k)
        for (GlobalIndex j { 0 }; j < s; ++j)
            for (GlobalIndex i { 0 }; i < s; ++i)
            {
                const GlobalIndex id { i + s * (j + s * k) };
                for (const GlobalIndex d : { -s * s, -s, GlobalIndex { -1 } })
                {
                    const bool inside =
                        (d == -1 && i > 0) || (d == -s && j > 0) || (d == -s * s && k > 0);
                    if (inside)
                        adjacency.push_back(id + d);
                }
                for (const GlobalIndex d : { GlobalIndex { 1 }, s, s * s })
                {
                    const bool inside = (d == 1 && i + 1 < s) || (d == s && j + 1 < s) ||
                                        (d == s * s && k + 1 < layers);
                    if (inside)
                        adjacency.push_back(id + d);
                }
                offsets.push_back(adjacency.size());
            }
    std::vector<int> parts(static_cast<std::size_t>(n), 0);
    if (nRanks > 1)
    {
        const auto whole = fieldsync::partition::CellGraph::global(offsets, adjacency);
        const auto partition = fieldsync::partition::MetisPartitioner(1).partition(whole, nRanks);
        parts.assign(partition.parts().begin(), partition.parts().end());
    }
    std::vector<LocalIndex> indexOnOwner(static_cast<std::size_t>(n));
    std::vector<LocalIndex> count(static_cast<std::size_t>(nRanks), 0);
    for (std::size_t c { 0 }; c < parts.size(); ++c)
    {
        indexOnOwner[c] = count[static_cast<std::size_t>(parts[c])]++;
    }
    GridProblem p;
    p.side = side;
    std::vector<GlobalIndex> ids;
    std::vector<std::size_t> ownedOffsets { 0 };
    std::vector<GlobalIndex> ownedAdjacency;
    std::vector<std::pair<int, GlobalIndex>> ghosts;
    for (std::size_t c { 0 }; c < parts.size(); ++c)
    {
        if (parts[c] != me)
        {
            continue;
        }
        ids.push_back(static_cast<GlobalIndex>(c));
        for (std::size_t e { offsets[c] }; e < offsets[c + 1]; ++e)
        {
            const GlobalIndex b { adjacency[e] };
            const int owner { parts[static_cast<std::size_t>(b)] };
            ownedAdjacency.push_back(b);
            p.neighbourOwners.push_back(owner);
            if (owner != me)
            {
                ghosts.emplace_back(owner, b);
            }
        }
        ownedOffsets.push_back(ownedAdjacency.size());
    }
    std::sort(ghosts.begin(), ghosts.end());
    ghosts.erase(std::unique(ghosts.begin(), ghosts.end()), ghosts.end());
    p.nOwned = ids.size();
    for (std::size_t k { 0 }; k < ghosts.size(); ++k)
    {
        p.ghostIds.push_back(ghosts[k].second);
        p.ghostCells.push_back(static_cast<LocalIndex>(p.nOwned + k));
        p.ghostOwners.push_back({ ghosts[k].first,
                                  indexOnOwner[static_cast<std::size_t>(ghosts[k].second)] });
    }
    p.owned = fieldsync::partition::CellGraph(
        std::move(ids), std::move(ownedOffsets), std::move(ownedAdjacency)
    );
    return p;
}

} // namespace fieldsync_bench
