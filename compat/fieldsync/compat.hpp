// SPDX-License-Identifier: MIT
/**
 * @file compat.hpp
 * @brief The seed's and NeoN's names, in the one compatibility place (the folder compat/).
 *
 * fieldsync's own names live in the namespace of their layer (fieldsync::mpi, fieldsync::halo,
 * fieldsync::partition). Code written for the NeoN MPI module (seeds/004) ports by changing a
 * namespace: these aliases keep its names working. The member names the seed uses
 * (MPIEnvironment::Rank(), FullDuplexCommBuffer::getSend/getReceive) stay on their classes.
 */
#pragma once

#include "fieldsync/core/error.hpp"
#include "fieldsync/halo/communicator.hpp"
#include "fieldsync/halo/fullDuplexCommBuffer.hpp"
#include "fieldsync/halo/halfDuplexCommBuffer.hpp"
#include "fieldsync/halo/rankSimplexCommMap.hpp"
#include "fieldsync/mpi/collectives.hpp"

#include <Kokkos_Core.hpp>

#include <source_location>

#include <mpi.h>

namespace fieldsync
{

using halo::Communicator;       /**< the seed's fieldsync::Communicator (NeoN::Communicator) */
using halo::RankSimplexCommMap; /**< the seed's map of cells per neighbour rank */
using CommMap = halo::RankSimplexCommMap; /**< NeoN's later name of RankSimplexCommMap */

} // namespace fieldsync

namespace fieldsync::mpi
{

/** @brief The seed's mpi::HalfDuplexCommBuffer (host memory unless told otherwise). */
template<typename MemSpace = Kokkos::HostSpace>
using HalfDuplexCommBuffer = halo::HalfDuplexCommBuffer<MemSpace>;

/** @brief The seed's mpi::FullDuplexCommBuffer (host memory unless told otherwise). */
template<typename MemSpace = Kokkos::HostSpace>
using FullDuplexCommBuffer = halo::FullDuplexCommBuffer<MemSpace>;

/**
 * @brief The seed's scalar all-reduce: `*value` becomes @p op over the values of every rank of
 * @p comm (MPI_Allreduce in place). Same checks as allReduce: a bad op for the type, a null
 * pointer, MPI_COMM_NULL or MPI not running throw fieldsync::Error naming the caller's line.
 */
template<typename valueType>
void reduceAllScalar(
    valueType* value,
    const ReduceOp op,
    MPI_Comm comm,
    std::source_location where = std::source_location::current()
)
{
    FIELDSYNC_CHECK_AT(value != nullptr, "reduceAllScalar: value is a null pointer", where);
    allReduce(*value, op, comm, CallOptions<> {}, where);
}

} // namespace fieldsync::mpi
