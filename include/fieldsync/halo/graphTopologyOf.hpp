// SPDX-License-Identifier: MIT
#pragma once

#include "fieldsync/halo/communicator.hpp"
#include "fieldsync/mpi/graphTopology.hpp"
#include "fieldsync/mpi/reordering.hpp"

#include <cstddef>
#include <source_location>

namespace fieldsync::halo
{

/**
 * @brief Collective: the distributed graph of @p comm's halo pattern: sources are the receive
 * map's neighbours, destinations the send map's, each weighted by its bytes (cells x
 * @p bytesPerCell, saturated at INT_MAX since MPI weights are int), over the ranks of
 * comm.environment(). @p reordering as in GraphTopology; when it renumbers, a Communicator for
 * the new numbering needs maps built for it (graph.rankMapping() says old rank -> new rank).
 */
[[nodiscard]] mpi::GraphTopology graphTopologyOf(
    const Communicator& comm,
    std::size_t bytesPerCell,
    const mpi::Reordering& reordering = {},
    std::source_location where = std::source_location::current()
);

} // namespace fieldsync::halo
