// SPDX-License-Identifier: MIT
// The seed's operators header: reduceAllScalar and every collective (blocking and non-blocking).
#pragma once

#include "fieldsync/core/error.hpp"
#include "fieldsync/mpi/collectives.hpp"
#include "fieldsync/mpi/dataType.hpp"
#include "fieldsync/mpi/nonBlocking.hpp"
#include "fieldsync/mpi/reduceOp.hpp"
#include "fieldsync/mpi/request.hpp"

#include <source_location>

#include <mpi.h>

namespace fieldsync::mpi
{

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
