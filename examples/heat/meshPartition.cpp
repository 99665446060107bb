// SPDX-License-Identifier: MIT
#include "meshPartition.hpp"

#include "fieldsync/config.hpp"
#include "fieldsync/core/error.hpp"
#include "fieldsync/mpi/sparseExchange.hpp"
#include "fieldsync/partition/haloBuilder.hpp"
#include "fieldsync/partition/partition.hpp"
#if FIELDSYNC_HAVE_METIS
#include "fieldsync/partition/metisPartitioner.hpp"
#endif
#if FIELDSYNC_HAVE_PTSCOTCH
#include "fieldsync/partition/ptScotchPartitioner.hpp"
#endif

#include <algorithm>
#include <chrono>
#include <map>
#include <numeric>
#include <vector>

namespace fieldsync::heat
{

namespace
{
/**
 * @brief Collective, the METIS path for small meshes: the slabs' graphs are gathered on rank 0
 * (ids are contiguous slabs in rank order, so rank order is id order), partitioned there, and
 * each rank gets back the parts of its own cells. Only the graph is gathered, not geometry.
 */
std::vector<int> metisParts(const mpi::MPIEnvironment& env, const CellGraph& slab)
{
    const bool root { env.rank() == 0 };
    const int nCells { static_cast<int>(slab.nCells()) };
    const int nAdjacency { static_cast<int>(slab.adjacency().size()) };
    std::vector<int> cellCounts(root ? rankCount(env) : 0);
    std::vector<int> adjacencyCounts(root ? rankCount(env) : 0);
    FIELDSYNC_MPI(MPI_Gather(&nCells, 1, MPI_INT, cellCounts.data(), 1, MPI_INT, 0, env.comm()));
    FIELDSYNC_MPI(
        MPI_Gather(&nAdjacency, 1, MPI_INT, adjacencyCounts.data(), 1, MPI_INT, 0, env.comm())
    );
    const auto displacements = [](const std::vector<int>& counts)
    {
        std::vector<int> d(counts.size(), 0);
        for (std::size_t r { 1 }; r < counts.size(); ++r)
        {
            d[r] = d[r - 1] + counts[r - 1];
        }
        return d;
    };
    const std::vector<int> cellDispl { displacements(cellCounts) };
    const std::vector<int> adjacencyDispl { displacements(adjacencyCounts) };
    std::vector<std::int64_t> degrees;
    for (std::size_t i { 0 }; i < slab.nCells(); ++i)
    {
        degrees.push_back(static_cast<std::int64_t>(slab.neighbours(i).size()));
    }
    const std::size_t total { root ? static_cast<std::size_t>(cellDispl.back() + cellCounts.back())
                                   : 0 };
    const std::size_t totalAdjacency {
        root ? static_cast<std::size_t>(adjacencyDispl.back() + adjacencyCounts.back()) : 0
    };
    std::vector<std::int64_t> allDegrees(total);
    std::vector<GlobalIndex> allAdjacency(totalAdjacency);
    FIELDSYNC_MPI(MPI_Gatherv(
        degrees.data(),
        nCells,
        MPI_INT64_T,
        allDegrees.data(),
        cellCounts.data(),
        cellDispl.data(),
        MPI_INT64_T,
        0,
        env.comm()
    ));
    FIELDSYNC_MPI(MPI_Gatherv(
        slab.adjacency().data(),
        nAdjacency,
        MPI_INT64_T,
        allAdjacency.data(),
        adjacencyCounts.data(),
        adjacencyDispl.data(),
        MPI_INT64_T,
        0,
        env.comm()
    ));
    std::vector<int> parts;
    if (root)
    {
        std::vector<std::size_t> offsets { 0 };
        for (const std::int64_t d : allDegrees)
        {
            offsets.push_back(offsets.back() + static_cast<std::size_t>(d));
        }
        const CellGraph global { CellGraph::global(std::move(offsets), std::move(allAdjacency)) };
#if FIELDSYNC_HAVE_METIS
        const partition::Partition p {
            partition::MetisPartitioner(1).partition(global, env.sizeRank())
        };
#else
        const partition::Partition p {
            partition::Partition::block(global.nCells(), env.sizeRank())
        };
#endif
        parts.assign(p.parts().begin(), p.parts().end());
    }
    std::vector<int> mine(slab.nCells());
    FIELDSYNC_MPI(MPI_Scatterv(
        parts.data(),
        cellCounts.data(),
        cellDispl.data(),
        MPI_INT,
        mine.data(),
        nCells,
        MPI_INT,
        0,
        env.comm()
    ));
    return mine;
}

/** @brief Collective: the part (new owner) of each cell of this rank's slab. */
std::vector<int>
slabParts(const mpi::MPIEnvironment& env, const CellGraph& slab, PartitionerKind partitioner)
{
    switch (partitioner)
    {
    case PartitionerKind::Metis:
        return metisParts(env, slab);
    case PartitionerKind::PtScotch:
#if FIELDSYNC_HAVE_PTSCOTCH
    {
        const partition::PtScotchPartitioner scotch;
        return scotch.partition(env, slab);
    }
#else
        throw Error("fieldsync-heat: built without PT-Scotch (FIELDSYNC_WITH_PTSCOTCH=OFF)");
#endif
    case PartitionerKind::Slab:
        break;
    }
    return std::vector<int>(slab.nCells(), env.rank());
}

/**
 * @brief Collective: sends each id of @p ids to the rank @p parts names (NBX sparse exchange);
 * returns the ids this rank now owns, ascending.
 */
std::vector<GlobalIndex> redistribute(
    const mpi::MPIEnvironment& env, std::span<const GlobalIndex> ids, std::span<const int> parts
)
{
    std::map<int, std::vector<std::int64_t>> byRank;
    for (std::size_t i { 0 }; i < ids.size(); ++i)
    {
        byRank[parts[i]].push_back(ids[i]);
    }
    std::vector<mpi::SparseMessage> outgoing;
    for (auto& [rank, list] : byRank)
    {
        outgoing.push_back({ rank, std::move(list) });
    }
    MPI_Comm comm { MPI_COMM_NULL };
    FIELDSYNC_MPI(MPI_Comm_dup(env.comm(), &comm));
    std::vector<GlobalIndex> owned;
    try
    {
        for (const mpi::SparseMessage& message :
             mpi::sparseExchange(comm, 7401, outgoing, "heat: cells to their new owners"))
        {
            owned.insert(owned.end(), message.data.begin(), message.data.end());
        }
    }
    catch (...)
    {
        MPI_Comm_free(&comm);
        throw;
    }
    FIELDSYNC_MPI(MPI_Comm_free(&comm));
    std::sort(owned.begin(), owned.end());
    return owned;
}
} // namespace

PartitionedMesh
partitionMesh(const mpi::MPIEnvironment& env, const MeshSource& source, PartitionerKind partitioner)
{
    using Clock = std::chrono::steady_clock;
    PartitionedMesh mesh;
    // 1. each rank makes its slab (only the graph is kept), 2. the slabs are partitioned,
    // 3. each rank makes the cells it now owns; the slab's ids, graph and parts, and the owned
    // ids, are freed before the next step (doc/notes/scaling.md, "Memory per cell")
    Clock::time_point repeated {};
    mesh.piece = source.piece(
        [&]
        {
            const auto [begin, end] = source.slab(env.rank(), env.sizeRank());
            std::vector<GlobalIndex> slabIds(static_cast<std::size_t>(end - begin));
            std::iota(slabIds.begin(), slabIds.end(), begin);
            const CellGraph slab { source.piece(slabIds).graph() };
            const std::vector<int> parts { slabParts(env, slab, partitioner) };
            repeated = Clock::now(); // a rebalance repeats what follows
            return redistribute(env, slabIds, parts);
        }()
    );
    // 4. the distributed halo: owners found through the directory, neighbours through NBX
    mesh.layout = partition::HaloBuilder(env, 1).build(mesh.piece.graph());
    mesh.repeatedSeconds = std::chrono::duration<double>(Clock::now() - repeated).count();
    return mesh;
}

} // namespace fieldsync::heat
