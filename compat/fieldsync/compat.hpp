// SPDX-License-Identifier: MIT
/**
 * @file compat.hpp
 * @brief The seed's and NeoN's names, in the one compatibility place (the folder compat/).
 *
 * fieldsync's own names live in the namespace of their layer (fieldsync::mpi, fieldsync::halo,
 * fieldsync::partition). Code written for the NeoN MPI module (seeds/004, and NeoN itself:
 * exasim-project/NeoN develop and its distributed branch) ports by changing the namespace and
 * the include paths: these names keep it working. The member names NeoN uses
 * (MPIEnvironment::Rank(), isInitialized(), FullDuplexCommBuffer::getSend/getReceive,
 * HalfDuplexCommBuffer::getCommName/send/receive, Communicator::bufferType) and NeoN's enum
 * spellings (ReduceOp::Land, ...) stay on their classes. doc/architecture.md has the table of
 * names and of the differences left on purpose; doc/porting.md shows a ported file.
 *
 * It also brings the names that moved into a layer's namespace last round (fieldsync::HaloBuilder,
 * fieldsync::ReverseOp, ...) as [[deprecated]] aliases (deprecated.hpp): old code compiles with a
 * warning that names the new spelling; and the collectives on a pointer and a count
 * (mpi/pointerCollectives.hpp: the specification's forms, and the others deprecated).
 */
#pragma once

#include "fieldsync/core/commKey.hpp"
#include "fieldsync/core/error.hpp"
#include "fieldsync/core/localIndex.hpp"
#include "fieldsync/deprecated.hpp"
#include "fieldsync/halo/communicator.hpp"
#include "fieldsync/halo/fullDuplexCommBuffer.hpp"
#include "fieldsync/halo/halfDuplexCommBuffer.hpp"
#include "fieldsync/halo/layoutPredicates.hpp"
#include "fieldsync/halo/rankSimplexCommMap.hpp"
#include "fieldsync/mpi/algorithms.hpp"
#include "fieldsync/mpi/collectives.hpp"
#include "fieldsync/mpi/dataType.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"
#include "fieldsync/mpi/mpiInit.hpp"
#include "fieldsync/mpi/pointerCollectives.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <source_location>
#include <string>
#include <vector>

#include <mpi.h>

namespace fieldsync
{

using halo::Communicator;       /**< the seed's fieldsync::Communicator (NeoN::Communicator) */
using halo::RankSimplexCommMap; /**< the seed's map of cells per neighbour rank */

/** @brief NeoN's label: the index of a cell in a rank's local field (32 bits, as NeoN's default).
 */
using label = LocalIndex;

/** @brief NeoN's entry of a per-rank map: one local cell. */
struct NodeCommMap
{
    label local_idx { 0 }; /**< the cell's index in the local field (NeoN's member name) */
};

/** @brief NeoN's cells of one rank, in message order. */
using RankCommMap = std::vector<NodeCommMap>;

/**
 * @brief NeoN's map of one direction: one RankCommMap per rank of the communicator. A
 * Communicator takes it as it is (converted once into a RankSimplexCommMap, whose flat form
 * grows with the neighbours, not with the communicator).
 */
using CommMap = std::vector<RankCommMap>;

} // namespace fieldsync

namespace fieldsync::mpi
{

/** @brief NeoN's later name of MPIInit (its distributed branch). */
using Init = MPIInit;

/**
 * @brief NeoN's later name of MPIEnvironment (its distributed branch): the same, except that it
 * may be made while MPI does not run. Then it has no communicator, isInitialized() is false and
 * rank() == sizeRank() == -1 (NeoN's answer), and every buffer, Communicator or collective made
 * with it throws a fieldsync::Error. An MPIEnvironment made without MPI throws at once instead,
 * which is fieldsync's own guard rail.
 */
class Environment : public MPIEnvironment
{
public:
    /** @brief Wraps @p comm when MPI runs, else the environment without MPI described above. */
    explicit Environment(
        MPI_Comm comm = MPI_COMM_WORLD, std::source_location where = std::source_location::current()
    )
        : MPIEnvironment(mpiRuns() ? MPIEnvironment(comm, where) : withoutMpi())
    {
    }

private:
    /** @brief Whether MPI is initialised and not yet finalised. */
    static bool mpiRuns() noexcept
    {
        int initialised { 0 };
        int finalised { 0 };
        MPI_Initialized(&initialised);
        MPI_Finalized(&finalised);
        return initialised != 0 && finalised == 0;
    }
};

/**
 * @brief NeoN's bufferHash: a tag for the name @p name, valid on every communicator (below
 * 32767, the least MPI_TAG_UB MPI guarantees): FNV-1a of the name modulo 32767. fieldsync's
 * buffers take their tag from the same hash modulo the communicator's own MPI_TAG_UB, and a
 * Communicator sends on a private duplicate with tags it hands out itself.
 */
[[nodiscard]] inline int bufferHash(const std::string& name) noexcept
{
    return static_cast<int>(fnv1a32(name) % 32767U);
}

/**
 * @brief NeoN's isend: MPI_Isend of @p count values of @p T (getType<T>()) from @p buffer to
 * @p destination with @p tag on @p comm, the request in @p request.
 * @throws Error naming @p where when MPI fails (communicators with MPI_ERRORS_RETURN).
 */
template<typename T>
void isend(
    const T* buffer,
    int count,
    int destination,
    int tag,
    MPI_Comm comm,
    MPI_Request* request,
    std::source_location where = std::source_location::current()
)
{
    FIELDSYNC_CHECK_AT(request != nullptr, "isend: request is a null pointer", where);
    FIELDSYNC_MPI_AT(
        MPI_Isend(buffer, count, getType<T>(), destination, tag, comm, request), where
    );
}

/**
 * @brief NeoN's irecv: MPI_Irecv of @p count values of @p T into @p buffer from @p source with
 * @p tag on @p comm, the request in @p request.
 * @throws Error naming @p where when MPI fails (communicators with MPI_ERRORS_RETURN).
 */
template<typename T>
void irecv(
    T* buffer,
    int count,
    int source,
    int tag,
    MPI_Comm comm,
    MPI_Request* request,
    std::source_location where = std::source_location::current()
)
{
    FIELDSYNC_CHECK_AT(request != nullptr, "irecv: request is a null pointer", where);
    FIELDSYNC_MPI_AT(MPI_Irecv(buffer, count, getType<T>(), source, tag, comm, request), where);
}

/**
 * @brief NeoN's test: whether the request @p request completed (MPI_Test, which then frees it
 * and sets it to MPI_REQUEST_NULL; a null request is complete). Never blocks.
 * @throws Error naming @p where when MPI fails.
 */
inline bool test(MPI_Request* request, std::source_location where = std::source_location::current())
{
    FIELDSYNC_CHECK_AT(request != nullptr, "test: request is a null pointer", where);
    int flag { 0 };
    FIELDSYNC_MPI_AT(MPI_Test(request, &flag, MPI_STATUS_IGNORE), where);
    return flag != 0;
}

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
