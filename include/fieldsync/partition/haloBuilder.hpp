// SPDX-License-Identifier: MIT
#pragma once

#include "fieldsync/mpi/mpiEnvironment.hpp"
#include "fieldsync/partition/cellGraph.hpp"
#include "fieldsync/partition/haloLayout.hpp"

#include <cstdint>
#include <memory>
#include <source_location>
#include <span>

namespace fieldsync::partition
{

/**
 * @brief Builds each rank's HaloLayout (local numbering and send/receive RankSimplexCommMaps)
 * from a distributed description of the mesh, for a halo of one or more layers.
 *
 * Input per rank: a CellGraph of the cells it owns (their global ids and their face
 * neighbours' global ids) and, optionally, the owner rank of every neighbour entry. Without
 * owners, an OwnerDirectory finds them. Who-sends-to-whom follows from the first layer's owners
 * (by symmetry, each rank needs from this one the cells next to its own), and one answered
 * exchange (mpi::answeredExchange()) checks that symmetry: each rank sends each owner of its
 * ghosts a summary of the edges between them (their number and two hash sums), the owner
 * answers whether its own summary is the same, and one agreement closes the exchange and says
 * whether any rank found bad input; only then are the edges themselves exchanged, to name the
 * bad one. Each layer beyond the first is two more answered exchanges: the owners of the last
 * layer send its cells' neighbours with their owners to the ranks that need them, and those
 * ranks ask the owners of the new ghosts for them. No rank holds anything sized by the
 * communicator or by the global mesh.
 *
 * An edge may be listed more than once (two faces between two cells), as many times both ways.
 * Bad input is a fieldsync::Error on every rank (the rank that sees it names the cell; the
 * others name that rank): a neighbour id no rank owns, a cell two ranks own, an asymmetric
 * graph (a lists b but b does not list a, or lists it more times than b lists a), an owner out
 * of range, a cell listed twice.
 *
 * Collective over the environment's communicator; messages travel on the library's private
 * duplicate of it (mpi/detail/privateComm.hpp), each step with tags of its own from the
 * library's tag allocator, so a rank that starts the next build while another still listens in
 * the last one is never heard there, and the application's messages never meet them.
 */
class HaloBuilder
{
public:
    /**
     * @brief A builder for ranks of @p env and halo depth @p depth (>= 1). Collective: it
     * duplicates the communicator and agrees on the depth (each layer is a collective step):
     * a depth below 1 on any rank, or different depths on different ranks, is an Error on every
     * rank.
     */
    explicit HaloBuilder(
        mpi::MPIEnvironment env,
        int depth = 1,
        std::source_location where = std::source_location::current()
    );

    /** @brief A copy shares the private communicator (a move is a copy: a builder moved from
     * stays usable). */
    HaloBuilder(const HaloBuilder&) = default;
    /** @brief Shares @p other's private communicator and count of builds. */
    HaloBuilder& operator=(const HaloBuilder&) = default;
    /** @brief Frees the private communicator with the last copy. */
    ~HaloBuilder() = default;

    /** @brief Collective: the layout of this rank; owners found with an OwnerDirectory. */
    [[nodiscard]] HaloLayout build(
        const CellGraph& owned, std::source_location where = std::source_location::current()
    ) const;

    /**
     * @brief Collective: the layout of this rank, with @p neighbourOwners[k] the owner of
     * neighbour entry owned.adjacency()[k] (as DistributedGraph provides).
     */
    [[nodiscard]] HaloLayout build(
        const CellGraph& owned,
        std::span<const int> neighbourOwners,
        std::source_location where = std::source_location::current()
    ) const;

    /** @brief The halo depth. */
    [[nodiscard]] int depth() const noexcept { return depth_; }

private:
    [[nodiscard]] HaloLayout buildImpl(
        const CellGraph& owned,
        std::span<const int> neighbourOwners,
        bool ownersGiven,
        const std::source_location& where
    ) const;

    mpi::MPIEnvironment env_;     /**< the user's ranks (maps are for its size) */
    mpi::MPIEnvironment private_; /**< the library's private duplicate of env_ (its messages) */
    int depth_;                   /**< halo layers */
};

} // namespace fieldsync::partition
