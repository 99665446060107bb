// SPDX-License-Identifier: MIT
/**
 * @file fieldsync.hpp
 * @brief The whole public API of fieldsync in one include.
 *
 * Every class also has its own header under fieldsync/<layer>/ (doc/architecture.md).
 */
#pragma once

#include "fieldsync/config.hpp"

// core
#include "fieldsync/core/clock.hpp"
#include "fieldsync/core/commKey.hpp"
#include "fieldsync/core/localIndex.hpp"
#include "fieldsync/core/error.hpp"
#include "fieldsync/core/liveObjects.hpp"
#include "fieldsync/core/logger.hpp"
#include "fieldsync/core/settings.hpp"

// mpi: start-up, environments, traits, collectives
#include "fieldsync/mpi/algorithm.hpp"
#include "fieldsync/mpi/callOptions.hpp"
#include "fieldsync/mpi/cartesianTopology.hpp"
#include "fieldsync/mpi/collectives.hpp"
#include "fieldsync/mpi/communicatorHierarchy.hpp"
#include "fieldsync/mpi/dataType.hpp"
#include "fieldsync/mpi/graphTopology.hpp"
#include "fieldsync/mpi/memorySpace.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"
#include "fieldsync/mpi/mpiInit.hpp"
#include "fieldsync/mpi/nonBlocking.hpp"
#include "fieldsync/mpi/reduceOp.hpp"
#include "fieldsync/mpi/reordering.hpp"
#include "fieldsync/mpi/request.hpp"
#include "fieldsync/mpi/tag.hpp"
#include "fieldsync/mpi/wait.hpp"

// halo: maps, buffers, the Communicator
#include "fieldsync/halo/communicator.hpp"
#include "fieldsync/halo/duplexBuffer.hpp"
#include "fieldsync/halo/exchangeStats.hpp"
#include "fieldsync/halo/fields.hpp"
#include "fieldsync/halo/fullDuplexCommBuffer.hpp"
#include "fieldsync/halo/ghostList.hpp"
#include "fieldsync/halo/graphTopologyOf.hpp"
#include "fieldsync/halo/halfDuplexCommBuffer.hpp"
#include "fieldsync/halo/packKernels.hpp"
#include "fieldsync/halo/rankSimplexCommMap.hpp"
#include "fieldsync/halo/reverseOp.hpp"
#include "fieldsync/halo/structuredBlock.hpp"

// partition: graphs, partitions, halo maps from a mesh
#include "fieldsync/partition/cellGraph.hpp"
#include "fieldsync/partition/distributedGraph.hpp"
#include "fieldsync/partition/haloBuilder.hpp"
#include "fieldsync/partition/haloLayout.hpp"
#include "fieldsync/partition/ownerDirectory.hpp"
#include "fieldsync/partition/partition.hpp"
#include "fieldsync/mpi/sparseExchange.hpp"
#if FIELDSYNC_HAVE_METIS
#include "fieldsync/partition/metisPartitioner.hpp"
#endif

// the seed's and NeoN's names (fieldsync::Communicator, mpi::FullDuplexCommBuffer, ...)
#include "fieldsync/compat.hpp"
