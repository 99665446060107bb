// SPDX-License-Identifier: MIT
#include "fieldsync/partition/distributedGraph.hpp"

#include "fieldsync/config.hpp"
#include "fieldsync/core/error.hpp"
#include "fieldsync/mpi/collectives.hpp"
#include "fieldsync/mpi/sparseExchange.hpp"
#if FIELDSYNC_HAVE_METIS
#include "fieldsync/partition/metisPartitioner.hpp"
#endif

#include <climits>
#include <string>

namespace fieldsync::partition
{

namespace
{
/** @brief scatterV of int64 pieces from root, packed in rank order; counts used on root only. */
std::vector<std::int64_t> scatterPieces(
    const std::vector<std::vector<std::int64_t>>& pieces,
    std::size_t myCount,
    int root,
    const mpi::MPIEnvironment& env,
    const std::source_location& where
)
{
    std::vector<std::int64_t> flat;
    std::vector<int> counts;
    if (env.rank() == root)
    {
        for (const auto& piece : pieces)
        {
            FIELDSYNC_CHECK_AT(
                flat.size() + piece.size() < static_cast<std::size_t>(INT_MAX),
                "DistributedGraph::scatter: graph too large for MPI_Scatterv counts",
                where
            );
            counts.push_back(static_cast<int>(piece.size()));
            flat.insert(flat.end(), piece.begin(), piece.end());
        }
    }
    std::vector<std::int64_t> mine(myCount);
    mpi::scatterV(
        flat, std::span<const int>(counts), mine, root, env.comm(), mpi::CallOptions<> {}, where
    );
    return mine;
}

/** @brief What root sends each rank: ids, degrees, adjacency and neighbour owners per rank, and
 * per rank the pair [cells, adjacency entries]. */
struct GraphPieces
{
    std::vector<std::vector<std::int64_t>> ids;       /**< global ids per rank */
    std::vector<std::vector<std::int64_t>> degrees;   /**< neighbour counts per rank */
    std::vector<std::vector<std::int64_t>> adjacency; /**< neighbour ids per rank */
    std::vector<std::vector<std::int64_t>> owners;    /**< owner of each neighbour per rank */
    std::vector<std::int64_t> sizes;                  /**< [cells, adjacency entries] per rank */
};

/** @brief Root only: splits @p global into the pieces of the @p nRanks parts of @p partition. */
GraphPieces splitByPart(const CellGraph& global, const Partition& partition, int nRanks)
{
    GraphPieces pieces;
    const auto p = static_cast<std::size_t>(nRanks);
    pieces.ids.resize(p);
    pieces.degrees.resize(p);
    pieces.adjacency.resize(p);
    pieces.owners.resize(p);
    for (std::size_t i { 0 }; i < global.nCells(); ++i)
    {
        const auto part = static_cast<std::size_t>(partition.partOf(i));
        pieces.ids[part].push_back(static_cast<std::int64_t>(i));
        const auto nbrs = global.neighbours(i);
        pieces.degrees[part].push_back(static_cast<std::int64_t>(nbrs.size()));
        for (const GlobalIndex n : nbrs)
        {
            pieces.adjacency[part].push_back(n);
            pieces.owners[part].push_back(partition.partOf(static_cast<std::size_t>(n)));
        }
    }
    for (std::size_t r { 0 }; r < p; ++r)
    {
        pieces.sizes.push_back(static_cast<std::int64_t>(pieces.ids[r].size()));
        pieces.sizes.push_back(static_cast<std::int64_t>(pieces.adjacency[r].size()));
    }
    return pieces;
}

/** @brief Collective: root checks the graph and the partition; bad input fails on every rank. */
void checkScatterInput(
    const mpi::MPIEnvironment& env,
    const CellGraph& global,
    const Partition& partition,
    bool isRoot,
    const std::source_location& where
)
{
    std::string error;
    if (isRoot)
    {
        try
        {
            partition.checkFits(global, where);
            FIELDSYNC_CHECK_AT(
                partition.nParts() == env.sizeRank(),
                "DistributedGraph::scatter: partition has " + std::to_string(partition.nParts()) +
                    " parts for " + std::to_string(env.sizeRank()) + " ranks",
                where
            );
            global.checkSymmetric(where);
        }
        catch (const Error& e)
        {
            error = e.message();
        }
    }
    mpi::raiseIfAnyFailed(env.comm(), error, where);
}
} // namespace

DistributedGraph::DistributedGraph(CellGraph cells, std::vector<int> neighbourOwners)
    : cells_(std::move(cells)), owners_(std::move(neighbourOwners))
{
    FIELDSYNC_CHECK(
        owners_.size() == cells_.adjacency().size(),
        "DistributedGraph: " + std::to_string(owners_.size()) + " owners for " +
            std::to_string(cells_.adjacency().size()) + " neighbour entries"
    );
}

DistributedGraph DistributedGraph::scatter(
    const mpi::MPIEnvironment& env,
    const CellGraph& global,
    const Partition& partition,
    int root,
    std::source_location where
)
{
    const int nRanks { env.sizeRank() };
    FIELDSYNC_CHECK_AT(
        root >= 0 && root < nRanks,
        "DistributedGraph::scatter: root " + std::to_string(root) + " out of range",
        where
    );
    const bool isRoot { env.rank() == root };
    checkScatterInput(env, global, partition, isRoot, where);
    const GraphPieces pieces { isRoot ? splitByPart(global, partition, nRanks) : GraphPieces {} };
    std::vector<std::int64_t> mySizes(2); // [cells, adjacency entries]
    mpi::scatter(pieces.sizes, mySizes, root, env.comm(), mpi::CallOptions<> {}, where);
    const auto nCells = static_cast<std::size_t>(mySizes[0]);
    const auto nAdj = static_cast<std::size_t>(mySizes[1]);
    const auto myIds = scatterPieces(pieces.ids, nCells, root, env, where);
    const auto myDegrees = scatterPieces(pieces.degrees, nCells, root, env, where);
    const auto myAdjacency = scatterPieces(pieces.adjacency, nAdj, root, env, where);
    const auto myOwners = scatterPieces(pieces.owners, nAdj, root, env, where);

    std::vector<std::size_t> offsets { 0 };
    for (const std::int64_t d : myDegrees)
    {
        offsets.push_back(offsets.back() + static_cast<std::size_t>(d));
    }
    std::vector<int> ownerInts(myOwners.begin(), myOwners.end());
    for (std::size_t k { 0 }; k < myOwners.size(); ++k)
    {
        ownerInts[k] = static_cast<int>(myOwners[k]);
    }
    return DistributedGraph(
        CellGraph(
            std::vector<GlobalIndex>(myIds.begin(), myIds.end()),
            std::move(offsets),
            std::vector<GlobalIndex>(myAdjacency.begin(), myAdjacency.end()),
            where
        ),
        std::move(ownerInts)
    );
}

DistributedGraph DistributedGraph::partitionAndScatter(
    const mpi::MPIEnvironment& env,
    const CellGraph& global,
    int root,
    int seed,
    std::vector<int>* partitionOut,
    std::source_location where
)
{
    std::string error;
    std::vector<int> parts;
    if (env.rank() == root)
    {
        try
        {
#if FIELDSYNC_HAVE_METIS
            const Partition metis {
                MetisPartitioner(seed).partition(global, env.sizeRank(), where)
            };
            parts.assign(metis.parts().begin(), metis.parts().end());
#else
            (void)seed;
            const Partition blocks { Partition::block(global.nCells(), env.sizeRank()) };
            parts.assign(blocks.parts().begin(), blocks.parts().end());
#endif
        }
        catch (const Error& e)
        {
            error = e.message();
        }
    }
    mpi::raiseIfAnyFailed(env.comm(), error, where);
    if (partitionOut != nullptr)
    {
        *partitionOut = parts;
    }
    const Partition partition { env.rank() == root
                                    ? Partition(std::move(parts), env.sizeRank(), where)
                                    : Partition(std::vector<int> {}, env.sizeRank(), where) };
    return scatter(env, global, partition, root, where);
}

} // namespace fieldsync::partition
