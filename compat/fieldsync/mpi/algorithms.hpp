// SPDX-License-Identifier: MIT
// fieldsync's own collective algorithms over point-to-point messages (seed 003,
// doc/algorithms.md). Type-erased: a pointer, a count of values, the TypeDesc of the values and,
// for reductions, an MPI_Op. Every function starts its algorithm and returns the Schedule that
// completes it: wait() blocks, test() progresses without blocking. MPI_IN_PLACE stands for the
// in-place buffer as in the MPI function of the same collective.
//
// Costs are given in the alpha-beta-gamma model: p ranks, n the bytes of the whole vector
// (reductions, broadcast) or of all p blocks (gathers, scatters), alpha the latency of one
// message, beta the time per byte sent, gamma the time per byte reduced.
//
// Their messages travel on the library's private duplicate of the caller's communicator, each
// call with a tag of its own from the library's one tag allocator (mpi/detail/privateComm.hpp),
// so the application's messages on that communicator never meet them; every received message
// is checked for the size its round expects.
#pragma once

#include "fieldsync/mpi/detail/collectiveCall.hpp"

#include <cstddef>
#include <memory>
#include <source_location>

#include <mpi.h>

namespace fieldsync::mpi::algorithms
{

class ScheduleState;

/** @brief The element type of the type-erased algorithms (datatype, multiplicity, bytes). */
using TypeDesc = detail::TypeDesc;

/**
 * @brief One started algorithm: rounds of point-to-point messages, each followed by local
 * reductions or copies. A round is posted when the one before it has completed, so test() and
 * wait() are what move it on. Destroying a schedule in flight completes it first, unless a
 * wait for it ended in an Error.
 */
class Schedule
{
public:
    /** @brief A complete, empty schedule. */
    Schedule() noexcept;

    /** @brief Takes over a built schedule and posts its first round. */
    explicit Schedule(std::unique_ptr<ScheduleState> state);

    /** @brief Moves the schedule; @p other becomes complete. */
    Schedule(Schedule&& other) noexcept;

    /** @brief Completes the schedule held, then takes over @p other's. */
    Schedule& operator=(Schedule&& other) noexcept;

    /** @brief Completes the schedule if it is still in flight (logging that it had to); one
     * whose wait ended in an Error is left to MPI instead (its memory is never freed). */
    ~Schedule();

    Schedule(const Schedule&) = delete;
    Schedule& operator=(const Schedule&) = delete;

    /**
     * @brief Progresses without blocking: true once every round has completed.
     * @throws Error for a failing MPI call, naming the call site the schedule was started for.
     */
    bool test();

    /**
     * @brief Blocks until every round has completed, through the library's one wait
     * (mpi/wait.hpp): past FIELDSYNC_WAIT_TIMEOUT it reports the call site, as a warning or an
     * Error; after an Error the schedule is still in flight and may be waited for again.
     * @throws Error as test(), and on a time-out with FIELDSYNC_WAIT_TIMEOUT_ACTION=error.
     */
    void wait();

private:
    std::unique_ptr<ScheduleState> state_;
};

/**
 * @brief Where the messages of an algorithm go: the communicator and the call site errors name.
 */
struct Context
{
    MPI_Comm comm { MPI_COMM_WORLD }; /**< the caller's communicator */
    std::source_location where { std::source_location::current() }; /**< named by errors */
    const char* name { "collective" }; /**< the operation, named by time-out reports (static) */
};

/**
 * @brief Binomial-tree reduce of @p count values to @p root (send MPI_IN_PLACE on the root: recv
 * holds its values). Commutative ops use a tree rooted at @p root; other ops a tree rooted at
 * rank 0 that combines in rank order, then one message to @p root.
 * Cost: ceil(log2 p) (alpha + n beta + n gamma).
 */
[[nodiscard]] Schedule reduceBinomial(
    const void* send,
    void* recv,
    std::size_t count,
    const TypeDesc& type,
    MPI_Op op,
    int root,
    const Context& context
);

/** @brief Binomial-tree broadcast of @p count values from @p root. Cost: ceil(log2 p)(alpha + n
 * beta). */
[[nodiscard]] Schedule broadcastBinomial(
    void* data, std::size_t count, const TypeDesc& type, int root, const Context& context
);

/**
 * @brief Broadcast as a binomial scatter of p blocks, then a ring allgather of them.
 * Cost: (ceil(log2 p) + p - 1) alpha + 2 ((p-1)/p) n beta.
 */
[[nodiscard]] Schedule broadcastScatterAllGather(
    void* data, std::size_t count, const TypeDesc& type, int root, const Context& context
);

/**
 * @brief Scatter in which the root sends every rank its block (recv MPI_IN_PLACE on the root:
 * it keeps its block in send). Cost: (p-1) alpha + ((p-1)/p) n beta.
 */
[[nodiscard]] Schedule scatterNaive(
    const void* send,
    void* recv,
    std::size_t countPerRank,
    const TypeDesc& type,
    int root,
    const Context& context
);

/**
 * @brief Scatter by recursive halving of the rank range: each holder sends the upper half of
 * its blocks to the first rank of that half. Cost: ceil(log2 p) alpha + ((p-1)/p) n beta.
 */
[[nodiscard]] Schedule scatterDivideAndConquer(
    const void* send,
    void* recv,
    std::size_t countPerRank,
    const TypeDesc& type,
    int root,
    const Context& context
);

/**
 * @brief Gather up a binomial tree, the reverse of scatterDivideAndConquer (send MPI_IN_PLACE on
 * the root: its block is already in recv). Cost: ceil(log2 p) alpha + ((p-1)/p) n beta.
 */
[[nodiscard]] Schedule gatherBinomial(
    const void* send,
    void* recv,
    std::size_t countPerRank,
    const TypeDesc& type,
    int root,
    const Context& context
);

/** @brief Gather in which every rank sends its block to the root. Cost: (p-1) alpha + ((p-1)/p) n
 * beta. */
[[nodiscard]] Schedule gatherNaive(
    const void* send,
    void* recv,
    std::size_t countPerRank,
    const TypeDesc& type,
    int root,
    const Context& context
);

/**
 * @brief Ring (bucket) allgather: p-1 steps, each passing one block to the right neighbour
 * (send MPI_IN_PLACE: the own block is already in recv). Cost: (p-1) alpha + ((p-1)/p) n beta.
 */
[[nodiscard]] Schedule allGatherRing(
    const void* send,
    void* recv,
    std::size_t countPerRank,
    const TypeDesc& type,
    const Context& context
);

/**
 * @brief Recursive-doubling allgather; for p not a power of two the first 2r ranks
 * (r = p - 2^floor(log2 p)) pair up first and the pairs' odd ranks get the result at the end.
 * Cost (p a power of two): log2 p alpha + ((p-1)/p) n beta; otherwise two more steps.
 */
[[nodiscard]] Schedule allGatherRecursiveDoubling(
    const void* send,
    void* recv,
    std::size_t countPerRank,
    const TypeDesc& type,
    const Context& context
);

/**
 * @brief Recursive-doubling allreduce of whole vectors (send MPI_IN_PLACE: recv holds the values).
 * Cost (p a power of two): log2 p (alpha + n beta + n gamma); otherwise two more steps of
 * alpha + n beta. Non-commutative ops: binomial reduce in rank order, then binomial broadcast.
 */
[[nodiscard]] Schedule allReduceRecursiveDoubling(
    const void* send,
    void* recv,
    std::size_t count,
    const TypeDesc& type,
    MPI_Op op,
    const Context& context
);

/**
 * @brief Ring allreduce: a reduce-scatter ring, then an allgather ring, over p blocks.
 * Cost: 2(p-1) alpha + 2((p-1)/p) n beta + ((p-1)/p) n gamma. Non-commutative ops as
 * allReduceRecursiveDoubling.
 */
[[nodiscard]] Schedule allReduceRing(
    const void* send,
    void* recv,
    std::size_t count,
    const TypeDesc& type,
    MPI_Op op,
    const Context& context
);

/**
 * @brief Rabenseifner's allreduce: reduce-scatter by recursive halving, then allgather by
 * recursive doubling. Cost (p a power of two): 2 log2 p alpha + 2((p-1)/p) n beta +
 * ((p-1)/p) n gamma; otherwise two more steps of alpha + n beta and n gamma.
 */
[[nodiscard]] Schedule allReduceRabenseifner(
    const void* send,
    void* recv,
    std::size_t count,
    const TypeDesc& type,
    MPI_Op op,
    const Context& context
);

/**
 * @brief Reduce-scatter in equal blocks by recursive halving (send MPI_IN_PLACE: recv holds the
 * p blocks, block 0 of it receives the result). Cost (p a power of two): log2 p alpha +
 * ((p-1)/p) n (beta + gamma); otherwise two more steps. Non-commutative ops: binomial reduce in
 * rank order to rank 0, then scatterDivideAndConquer.
 */
[[nodiscard]] Schedule reduceScatterRecursiveHalving(
    const void* send,
    void* recv,
    std::size_t countPerRank,
    const TypeDesc& type,
    MPI_Op op,
    const Context& context
);

} // namespace fieldsync::mpi::algorithms
