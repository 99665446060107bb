// SPDX-License-Identifier: MIT
#include "fieldsync/halo/graphTopologyOf.hpp"

#include <algorithm>
#include <climits>
#include <vector>

namespace fieldsync::halo
{

namespace
{
/** @brief One side of the graph: a map's neighbours and their bytes as weights. */
struct Side
{
    std::vector<int> ranks;   /**< neighbour ranks */
    std::vector<int> weights; /**< bytes per neighbour, saturated at INT_MAX */
};

Side sideOf(const RankSimplexCommMap& map, std::size_t bytesPerCell)
{
    Side side;
    for (const int rank : map.neighbours())
    {
        const std::size_t cells = map.sizeOf(rank);
        const std::size_t limit = static_cast<std::size_t>(INT_MAX);
        const std::size_t bytes =
            bytesPerCell != 0 && cells > limit / bytesPerCell ? limit : cells * bytesPerCell;
        side.ranks.push_back(rank);
        side.weights.push_back(static_cast<int>(std::min(bytes, limit)));
    }
    return side;
}
} // namespace

mpi::GraphTopology graphTopologyOf(
    const Communicator& comm,
    std::size_t bytesPerCell,
    const mpi::Reordering& reordering,
    std::source_location where
)
{
    Side sources = sideOf(comm.receiveMap(), bytesPerCell);
    Side destinations = sideOf(comm.sendMap(), bytesPerCell);
    return mpi::GraphTopology(
        comm.environment(),
        std::move(sources.ranks),
        std::move(sources.weights),
        std::move(destinations.ranks),
        std::move(destinations.weights),
        reordering,
        where
    );
}

} // namespace fieldsync::halo
