// SPDX-License-Identifier: MIT
#pragma once

#include "fieldsync/mpi/algorithm.hpp"
#include "fieldsync/mpi/dataType.hpp"
#include "fieldsync/mpi/matchId.hpp"
#include "fieldsync/mpi/reduceOp.hpp"
#include "fieldsync/mpi/request.hpp"

#include <cstddef>
#include <iterator>
#include <memory>
#include <source_location>
#include <span>
#include <typeinfo>

#include <mpi.h>

namespace fieldsync::mpi::detail
{

/** @brief The collective operations of the engine. */
enum class Kind
{
    AllReduce,          /**< MPI_Allreduce */
    Reduce,             /**< MPI_Reduce */
    Broadcast,          /**< MPI_Bcast */
    AllGather,          /**< MPI_Allgather */
    AllGatherV,         /**< MPI_Allgatherv */
    Gather,             /**< MPI_Gather */
    GatherV,            /**< MPI_Gatherv */
    Scatter,            /**< MPI_Scatter */
    ScatterV,           /**< MPI_Scatterv */
    AllToAll,           /**< MPI_Alltoall */
    AllToAllV,          /**< MPI_Alltoallv */
    ReduceScatter,      /**< MPI_Reduce_scatter (counts vector) */
    ReduceScatterBlock, /**< MPI_Reduce_scatter_block (equal blocks) */
    Scan,               /**< MPI_Scan */
    ExScan,             /**< MPI_Exscan */
    Barrier             /**< MPI_Barrier */
};

/** @brief The public name of @p kind: the blocking form ("allGatherV") or the i-form. */
[[nodiscard]] constexpr const char* publicName(Kind kind, bool blocking) noexcept
{
    // one row per Kind, in its order
    constexpr const char* names[][2] { { "allReduce", "iAllReduce" },
                                       { "reduce", "iReduce" },
                                       { "broadcast", "iBroadcast" },
                                       { "allGather", "iAllGather" },
                                       { "allGatherV", "iAllGatherV" },
                                       { "gather", "iGather" },
                                       { "gatherV", "iGatherV" },
                                       { "scatter", "iScatter" },
                                       { "scatterV", "iScatterV" },
                                       { "allToAll", "iAllToAll" },
                                       { "allToAllV", "iAllToAllV" },
                                       { "reduceScatter", "iReduceScatter" },
                                       { "reduceScatter", "iReduceScatter" },
                                       { "scan", "iScan" },
                                       { "exScan", "iExScan" },
                                       { "barrier", "iBarrier" } };
    static_assert(std::size(names) == static_cast<std::size_t>(Kind::Barrier) + 1);
    return names[static_cast<std::size_t>(kind)][blocking ? 0 : 1];
}

/** @brief How one element type goes to MPI: `multiplicity` predefined `datatype`s per value. */
struct TypeDesc
{
    MPI_Datatype datatype { MPI_BYTE };         /**< predefined element datatype */
    int multiplicity { 1 };                     /**< datatypes per value */
    std::size_t bytes { 1 };                    /**< sizeof one value */
    TypeClass typeClass { TypeClass::Integer }; /**< decides the valid ReduceOps */
};

/** @brief The TypeDesc of T (compile-time error with a readable message for unsupported T). */
template<typename T>
[[nodiscard]] TypeDesc typeDesc()
{
    return TypeDesc { MpiTypeInfo<T>::datatype(),
                      MpiTypeInfo<T>::multiplicity(),
                      sizeof(T),
                      MpiTypeInfo<T>::typeClass() };
}

/**
 * @brief What compiled code does with one user buffer besides reading its address: fence the
 * execution space instance that wrote it and copy it to and from a host staging buffer. The
 * library's one way to erase a type
 * (doc/architecture.md): an abstract interface, one final template (BufferAccessOf in
 * detail/describe.hpp) per value type, memory space and execution space.
 */
class BufferAccess
{
public:
    virtual ~BufferAccess() = default;

    /** @brief Waits for the execution space instance that writes the buffer. */
    virtual void fence() const = 0;

    /**
     * @brief Copies the first @p n values to @p host, complete on return and ordered after the
     * instance's earlier work (enqueued on it, or after a fence): no fence() is needed first.
     */
    virtual void toHost(void* host, std::size_t n) const = 0;

    /**
     * @brief Copies @p n values from @p host into the buffer, ordered after the instance's
     * earlier work and complete on return.
     */
    virtual void fromHost(const void* host, std::size_t n) const = 0;

    /**
     * @brief The execution space instance that writes the buffer when it is of @p type (a
     * `const ExecutionSpace*`), else null (another type, or none named).
     */
    [[nodiscard]] virtual const void* instance(const std::type_info& type) const noexcept = 0;
};

/**
 * @brief What keeps a non-blocking call's view alive until the call completes: a copy of the
 * view, type-erased (made by keepAllocation, detail/describe.hpp); empty for an unmanaged view,
 * which a copy would not keep either.
 */
using KeptAllocation = std::shared_ptr<const void>;

/**
 * @brief One user buffer, type-erased: where it is, how many values, and how to fence and stage
 * it. Built by describe() (detail/describe.hpp) from a span, vector or view. A host
 * buffer that is neither staged nor written by an asynchronous execution space needs no
 * access object (no host path allocates one); a non-blocking call's view is kept alive by
 * `kept`, a copy of the view.
 */
struct Buffer
{
    void* data { nullptr };                     /**< the user's memory (host or device) */
    std::size_t count { 0 };                    /**< values it holds */
    bool present { false };                     /**< false for "no buffer" (inPlace, barrier) */
    bool stage { false };                       /**< goes through a host staging buffer */
    std::shared_ptr<const BufferAccess> access; /**< fence and staging copies, or null */
    KeptAllocation kept;                        /**< the view's memory (non-blocking calls) */
};

/** @brief Everything one collective call needs; consumed by run(). */
struct Call
{
    Kind kind { Kind::Barrier };               /**< which operation */
    const char* name { "" };                   /**< public name for messages ("allGatherV") */
    TypeDesc type {};                          /**< element type */
    Buffer send {};                            /**< send buffer (absent when in place) */
    Buffer recv {};                            /**< receive buffer, or the in-place buffer */
    bool inPlace { false };                    /**< MPI_IN_PLACE form */
    ReduceOp op { ReduceOp::Sum };             /**< for reductions */
    int root { 0 };                            /**< for rooted operations */
    std::span<const int> sendCounts {};        /**< values per rank (V operations) */
    std::span<const int> recvCounts {};        /**< values per rank (V operations) */
    MPI_Comm comm { MPI_COMM_NULL };           /**< communicator */
    bool blocking { true };                    /**< blocking call or i-variant */
    Algorithm algorithm { Algorithm::Native }; /**< the MPI library's, or one of fieldsync's */
    const MatchId* matchId { nullptr };        /**< CallOptions::matchId, null when none */
    std::source_location where {};             /**< the user's call site */
};

/**
 * @brief Validates, fences, stages and starts (or runs) one collective. Blocking calls return
 * an empty Request once the results are in the user's memory.
 * @throws Error naming call.where and the bad value for bad input; Error for MPI failures.
 */
Request run(Call& call);

/** @brief Throws an Error at @p where unless MPI is initialised and not finalised (after the
 * first call that finds MPI running, one load until MPI_Finalize begins). */
void requireMpiRunning(const char* name, const std::source_location& where);

} // namespace fieldsync::mpi::detail
