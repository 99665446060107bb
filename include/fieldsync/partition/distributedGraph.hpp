// SPDX-License-Identifier: MIT
#pragma once

#include "fieldsync/mpi/mpiEnvironment.hpp"
#include "fieldsync/partition/cellGraph.hpp"
#include "fieldsync/partition/partition.hpp"

#include <source_location>
#include <span>
#include <vector>

namespace fieldsync::partition
{

/**
 * @brief One rank's piece of a partitioned mesh graph: the cells it owns (ascending global id)
 * with their neighbours, and the owner of every neighbour entry. The input HaloBuilder::build
 * takes.
 *
 * The convenience path for meshes that fit one rank: the whole graph lives on a root rank,
 * which partitions it (partitionAndScatter(): METIS when built with it, else blocks) or takes a
 * partition the user gives (scatter()), and sends each rank its piece. Only the root holds
 * anything of the size of the mesh or of the communicator.
 */
class DistributedGraph
{
public:
    /** @brief An empty piece. */
    DistributedGraph() = default;

    /** @brief A piece from its parts (the owners are parallel to cells.adjacency()). */
    DistributedGraph(CellGraph cells, std::vector<int> neighbourOwners);

    /**
     * @brief Collective: @p root sends each rank the cells @p partition gives it. @p global and
     * @p partition are read on the root only (other ranks may pass empty ones).
     * @throws Error on every rank when the root finds a bad partition (wrong length, part out of
     * range: naming the cell) or an asymmetric graph (naming the cell).
     */
    static DistributedGraph scatter(
        const mpi::MPIEnvironment& env,
        const CellGraph& global,
        const Partition& partition,
        int root = 0,
        std::source_location where = std::source_location::current()
    );

    /**
     * @brief Collective: partitions @p global (read on @p root only) into sizeRank() parts with
     * METIS (seed @p seed; blocks of ids when fieldsync was built without METIS) and scatters it.
     * @param partitionOut if not null, receives the partition on the root (for output).
     */
    static DistributedGraph partitionAndScatter(
        const mpi::MPIEnvironment& env,
        const CellGraph& global,
        int root = 0,
        int seed = 1,
        std::vector<int>* partitionOut = nullptr,
        std::source_location where = std::source_location::current()
    );

    /** @brief The owned cells and their neighbours. */
    [[nodiscard]] const CellGraph& cells() const noexcept { return cells_; }

    /** @brief Owner rank of each neighbour entry of cells().adjacency(). */
    [[nodiscard]] std::span<const int> neighbourOwners() const noexcept { return owners_; }

private:
    CellGraph cells_;         /**< owned cells */
    std::vector<int> owners_; /**< owner per adjacency entry */
};

} // namespace fieldsync::partition
