// SPDX-License-Identifier: MIT
#pragma once

#include "fieldsync/mpi/mpiEnvironment.hpp"
#include "fieldsync/mpi/reordering.hpp"

#include <source_location>
#include <span>
#include <vector>

namespace fieldsync::mpi
{

/**
 * @brief A distributed graph topology as an object (seeds/001): the communicator of
 * MPI_Dist_graph_create_adjacent (held as an owning MPIEnvironment) with its weighted
 * neighbourhood.
 *
 * Each rank names its own neighbours: sources (the ranks it receives from) and destinations
 * (the ranks it sends to), each with a weight (for a halo: the bytes of the message). The
 * neighbour lists are given in the numbering of the constructor's environment; sources(),
 * destinations() and their weights are read back from the new communicator
 * (MPI_Dist_graph_neighbors), so they are in its numbering, which differs from the old one when
 * MPI or a mapping reordered the ranks: rankMapping() translates.
 */
class GraphTopology
{
public:
    /**
     * @brief Collective: the graph with this rank's @p sources and @p destinations (ranks of
     * @p env) and their weights (one per neighbour, >= 0).
     * @param reordering keep @p env's numbering (default), let MPI reorder (`true`), or a
     * mapping old rank -> new rank applied with reorder() (the lists are translated).
     * @throws Error when a weight list has another length than its ranks, a weight is negative
     * or a rank is out of range.
     */
    GraphTopology(
        const MPIEnvironment& env,
        std::vector<int> sources,
        std::vector<int> sourceWeights,
        std::vector<int> destinations,
        std::vector<int> destinationWeights,
        const Reordering& reordering = {},
        std::source_location where = std::source_location::current()
    );

    /** @brief The graph communicator (owned). */
    [[nodiscard]] const MPIEnvironment& environment() const noexcept { return env_; }

    /** @brief The ranks this rank receives from, in the graph communicator's numbering. */
    [[nodiscard]] std::span<const int> sources() const noexcept { return sources_; }

    /** @brief The weights of sources(). */
    [[nodiscard]] std::span<const int> sourceWeights() const noexcept { return sourceWeights_; }

    /** @brief The ranks this rank sends to, in the graph communicator's numbering. */
    [[nodiscard]] std::span<const int> destinations() const noexcept { return destinations_; }

    /** @brief The weights of destinations(). */
    [[nodiscard]] std::span<const int> destinationWeights() const noexcept
    {
        return destinationWeights_;
    }

    /**
     * @brief Old rank (in the constructor's environment) -> rank in environment(), gathered on
     * every rank (the identity unless MPI or a mapping reordered).
     */
    [[nodiscard]] std::span<const int> rankMapping() const noexcept { return rankMapping_; }

    /** @brief Whether the ranks were renumbered (rankMapping() is not the identity). */
    [[nodiscard]] bool reordered() const noexcept;

private:
    void readNeighbours();

    MPIEnvironment env_;                  /**< the graph communicator */
    std::vector<int> sources_;            /**< ranks I receive from (new numbering) */
    std::vector<int> sourceWeights_;      /**< their weights */
    std::vector<int> destinations_;       /**< ranks I send to (new numbering) */
    std::vector<int> destinationWeights_; /**< their weights */
    std::vector<int> rankMapping_;        /**< old rank -> new rank */
};

} // namespace fieldsync::mpi
