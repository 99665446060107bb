// SPDX-License-Identifier: MIT
#pragma once

#include "meshSource.hpp"

#include "fieldsync/mpi/mpiEnvironment.hpp"
#include "fieldsync/partition/haloLayout.hpp"

#include <cstddef>

namespace fieldsync::heat
{

/** @brief The number of ranks of @p env as a size (one entry per rank in a vector). */
inline std::size_t rankCount(const mpi::MPIEnvironment& env)
{
    return static_cast<std::size_t>(env.sizeRank());
}

/** @brief How the cells are split over the ranks. */
enum class PartitionerKind
{
    Metis,    /**< the slabs' graph gathered on rank 0, METIS k-way (blocks without METIS) */
    PtScotch, /**< the distributed graph partitioned by PT-Scotch (SCOTCH_dgraphPart) */
    Slab      /**< no partitioner: each rank keeps the slab of ids it generated */
};

/** @brief One rank's cells of a partitioned mesh: geometry and halo layout, same order. */
struct PartitionedMesh
{
    MeshPiece piece;              /**< the owned cells with their geometry */
    partition::HaloLayout layout; /**< owned cells (as piece) then ghosts, and the halo maps */
    /**
     * @brief This rank's time in the steps a rebalance repeats, seconds: moving the ids to
     * their owners, making the owned cells and building the halo (not the slab or its
     * partition, which a rebalance replaces with its own).
     */
    double repeatedSeconds { 0.0 };
};

/**
 * @brief Collective: each rank makes its slab of @p source's cells, the slabs' graph is
 * partitioned by @p partitioner, each rank makes the cells it then owns and HaloBuilder's
 * distributed path builds the halo of depth 1. No rank makes more than its own cells and their
 * neighbours, except that the METIS path gathers the graph (not the geometry) on rank 0. Shared
 * by fieldsync-heat and fieldsync-poisson.
 */
PartitionedMesh partitionMesh(
    const mpi::MPIEnvironment& env, const MeshSource& source, PartitionerKind partitioner
);

} // namespace fieldsync::heat
