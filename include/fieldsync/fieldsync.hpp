// SPDX-License-Identifier: MIT
/**
 * @file fieldsync.hpp
 * @brief The whole public API of fieldsync in one include.
 *
 * Every class also has its own header under fieldsync/<layer>/ (doc/architecture.md). The
 * classes that need an optional library (MetisPartitioner, PtScotchPartitioner, Rebalancer) are
 * declared in every build; in a build without that library, using one fails to compile with a
 * message naming the CMake option (FIELDSYNC_WITH_METIS, _PTSCOTCH, _ZOLTAN). The seed's and
 * NeoN's names and the deprecated old names come with compat.hpp, included last.
 */
#pragma once

#include "fieldsync/config.hpp"

// core
#include "fieldsync/core/clock.hpp"
#include "fieldsync/core/commKey.hpp"
#include "fieldsync/core/error.hpp"
#include "fieldsync/core/faults.hpp"
#include "fieldsync/core/liveObjects.hpp"
#include "fieldsync/core/localIndex.hpp"
#include "fieldsync/core/logger.hpp"
#include "fieldsync/core/settings.hpp"

// mpi: start-up, environments, traits, collectives
#include "fieldsync/mpi/algorithm.hpp"
#include "fieldsync/mpi/allToAll.hpp"
#include "fieldsync/mpi/answeredExchange.hpp"
#include "fieldsync/mpi/broadcast.hpp"
#include "fieldsync/mpi/callOptions.hpp"
#include "fieldsync/mpi/cartesianTopology.hpp"
#include "fieldsync/mpi/collectiveBuffer.hpp"
#include "fieldsync/mpi/collectives.hpp"
#include "fieldsync/mpi/communicatorHierarchy.hpp"
#include "fieldsync/mpi/dataType.hpp"
#include "fieldsync/mpi/gathers.hpp"
#include "fieldsync/mpi/graphTopology.hpp"
#include "fieldsync/mpi/memorySpace.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"
#include "fieldsync/mpi/mpiInit.hpp"
#include "fieldsync/mpi/reduceOp.hpp"
#include "fieldsync/mpi/reductionBatch.hpp"
#include "fieldsync/mpi/reductions.hpp"
#include "fieldsync/mpi/reordering.hpp"
#include "fieldsync/mpi/request.hpp"
#include "fieldsync/mpi/scans.hpp"
#include "fieldsync/mpi/scatters.hpp"
#include "fieldsync/mpi/setUpAgreement.hpp"
#include "fieldsync/mpi/sparseExchange.hpp"
#include "fieldsync/mpi/stagingBytes.hpp"
#include "fieldsync/mpi/tag.hpp"
#include "fieldsync/mpi/wait.hpp"

// halo: maps, buffers, the Communicator
#include "fieldsync/halo/commBufferCore.hpp"
#include "fieldsync/halo/commitOptions.hpp"
#include "fieldsync/halo/communicator.hpp"
#include "fieldsync/halo/duplexBuffer.hpp"
#include "fieldsync/halo/exchangeOptions.hpp"
#include "fieldsync/halo/exchangeStats.hpp"
#include "fieldsync/halo/fields.hpp"
#include "fieldsync/halo/fullDuplexCommBuffer.hpp"
#include "fieldsync/halo/ghostList.hpp"
#include "fieldsync/halo/graphTopologyOf.hpp"
#include "fieldsync/halo/halfDuplexCommBuffer.hpp"
#include "fieldsync/halo/indexRuns.hpp"
#include "fieldsync/halo/packKernels.hpp"
#include "fieldsync/halo/rankSimplexCommMap.hpp"
#include "fieldsync/halo/reverseOp.hpp"
#include "fieldsync/halo/structuredBlock.hpp"

// partition: graphs, partitions, halo maps from a mesh
#include "fieldsync/partition/cellGraph.hpp"
#include "fieldsync/partition/distributedGraph.hpp"
#include "fieldsync/partition/haloBuilder.hpp"
#include "fieldsync/partition/haloLayout.hpp"
#include "fieldsync/partition/layoutFromGhosts.hpp"
#include "fieldsync/partition/metisPartitioner.hpp"
#include "fieldsync/partition/migration.hpp"
#include "fieldsync/partition/ownerDirectory.hpp"
#include "fieldsync/partition/partition.hpp"
#include "fieldsync/partition/ptScotchPartitioner.hpp"
#include "fieldsync/partition/rebalanceTrigger.hpp"
#include "fieldsync/partition/rebalancer.hpp"

// the seed's and NeoN's names (fieldsync::Communicator, mpi::FullDuplexCommBuffer, ...)
#include "fieldsync/compat.hpp"
