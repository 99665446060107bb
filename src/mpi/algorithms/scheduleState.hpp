// SPDX-License-Identifier: MIT
// Private to src/mpi/algorithms: a schedule as data (rounds of messages, each followed by local
// combines) and the building blocks the algorithm files share.
#pragma once

#include "fieldsync/mpi/algorithms.hpp"

#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

namespace fieldsync::mpi::algorithms
{

/** @brief One message of a round. */
struct Transfer
{
    bool isSend { false };       /**< send, or receive */
    int peer { 0 };              /**< rank in the communicator */
    std::byte* data { nullptr }; /**< first value */
    std::size_t values { 0 };    /**< values it carries */
};

/** @brief What a combine does once its round's messages are complete. */
enum class CombineKind
{
    Reduce, /**< inout = in op inout (MPI_Reduce_local) */
    Copy    /**< inout = in */
};

/** @brief One local step after a round. */
struct Combine
{
    CombineKind kind { CombineKind::Copy }; /**< reduce or copy */
    const std::byte* in { nullptr };        /**< left operand, or the source */
    std::byte* inout { nullptr };           /**< right operand and result, or the target */
    std::size_t values { 0 };               /**< values */
};

/** @brief Where a round's messages and combines end in the schedule's flat lists. */
struct Round
{
    std::size_t transfersEnd { 0 }; /**< one past its last transfer */
    std::size_t combinesEnd { 0 };  /**< one past its last combine */
};

/** @brief Scratch memory of a schedule: the buffer and its size in bytes. */
struct ScratchBlock
{
    std::unique_ptr<std::byte[]> data; /**< the memory */
    std::size_t capacity { 0 };        /**< bytes */
};

/**
 * @brief Scratch blocks kept between algorithm calls: a large call reuses memory whose pages are
 * already mapped instead of faulting in fresh ones each time (at 4 MiB that cost more than the
 * messages). Keeps at most maxKept blocks, the largest.
 */
class ScratchPool
{
public:
    static constexpr std::size_t maxKept { 8 }; /**< blocks kept at most */

    /** @brief A block of at least @p bytes: the smallest kept one that fits, or a new one. */
    [[nodiscard]] ScratchBlock take(std::size_t bytes);

    /** @brief Keeps @p block for a later call. */
    void give(ScratchBlock block);

private:
    std::mutex mutex_;
    std::vector<ScratchBlock> free_;
};

/** @brief The process's scratch pool. */
[[nodiscard]] ScratchPool& scratchPool();

/** @brief A built schedule and how far it has run. */
class ScheduleState
{
public:
    /** @brief An empty schedule on @p context's communicator for values of @p type. */
    ScheduleState(const Context& context, const TypeDesc& type, MPI_Op op);

    /** @brief Returns the scratch blocks to the pool. */
    ~ScheduleState();

    ScheduleState(const ScheduleState&) = delete;
    ScheduleState& operator=(const ScheduleState&) = delete;

    [[nodiscard]] int rank() const { return rank_; } /**< this rank */
    [[nodiscard]] int size() const { return size_; } /**< ranks */
    [[nodiscard]] std::size_t usize() const
    {
        return static_cast<std::size_t>(size_);
    }                                                               /**< ranks */
    [[nodiscard]] std::size_t bytes() const { return type_.bytes; } /**< bytes per value */
    [[nodiscard]] bool commutative() const { return commutative_; } /**< op commutes */

    /** @brief @p base advanced by @p values values. */
    [[nodiscard]] std::byte* at(const void* base, std::size_t values) const;

    /** @brief A scratch buffer of @p values values, owned by the schedule (never moves). */
    [[nodiscard]] std::byte* scratch(std::size_t values);

    /**
     * @brief Starts a round: the transfers added next are posted together once the round before
     * has completed, the combines added next run once they have completed.
     */
    ScheduleState& newRound();

    /** @brief Adds a message to the last round. */
    ScheduleState& transfer(const Transfer& t);

    /** @brief Adds a local step to the last round. */
    ScheduleState& combine(const Combine& c);

    /** @brief Adds a round of only a copy, unless source and target are the same. */
    void copy(const void* from, void* to, std::size_t values);

    /** @brief Posts the current round. */
    void post();

    /** @brief Tests the current round and moves on past every completed one: true when every
     * round has completed. Never blocks (waits go through the library's one wait). */
    bool progress();

    [[nodiscard]] const std::source_location& where() const { return where_; } /**< call site */
    [[nodiscard]] const char* name() const { return name_; } /**< the operation's name */

    /** @brief Records that a wait for this schedule ended in an Error (a time-out): destroying
     * it then leaves its messages to MPI instead of waiting again. */
    void markWaitFailed() noexcept { waitFailed_ = true; }

    /** @brief Whether a wait for this schedule ended in an Error. */
    [[nodiscard]] bool waitFailed() const noexcept { return waitFailed_; }

private:
    Round& openRound();
    void runCombines(std::size_t first, std::size_t end) const;
    /** @brief Checks each receive of the current round got the size it posted (Error if not). */
    void checkArrivals() const;

    MPI_Comm comm_ { MPI_COMM_NULL }; /**< the caller's communicator's private duplicate */
    TypeDesc type_;
    MPI_Op op_;
    std::source_location where_;
    const char* name_;
    bool waitFailed_ { false };
    int rank_ { 0 };
    int size_ { 1 };
    int tag_ { 0 }; /**< this call's tag on comm_ */
    bool commutative_ { true };
    std::vector<ScratchBlock> scratch_;
    std::vector<Round> rounds_;
    std::vector<Transfer> transfers_;
    std::vector<Combine> combines_;
    std::vector<MPI_Request> requests_;
    std::vector<MPI_Status> statuses_; /**< the current round's, for checkArrivals */
    std::size_t current_ { 0 };
    bool posted_ { false };
};

/** @brief Rank @p rank of the tree rooted at @p root, counted from the root. */
[[nodiscard]] constexpr int relative(int rank, int root, int p) noexcept
{
    return (rank - root + p) % p;
}

/** @brief The communicator rank of relative rank @p relative. */
[[nodiscard]] constexpr int absolute(int relative, int root, int p) noexcept
{
    return (relative + root) % p;
}

/** @brief Start of block @p k of @p n values split as evenly as possible into @p p blocks. */
[[nodiscard]] constexpr std::size_t blockStart(std::size_t n, int p, int k) noexcept
{
    return n * static_cast<std::size_t>(k) / static_cast<std::size_t>(p);
}

/** @brief Value offsets of @p n values split as evenly as possible into @p p blocks, and the end.
 */
[[nodiscard]] std::vector<std::size_t> balancedBounds(std::size_t n, int p);

/** @brief Value offsets of @p p blocks of @p each values. */
[[nodiscard]] std::vector<std::size_t> equalBounds(std::size_t each, int p);

/**
 * @brief Blocks in relative-rank order at @p data, block k at bounds[k] - bounds[base]; the
 * ranks are relative to @p root (0 for no rotation).
 */
struct BlockBuffer
{
    std::byte* data { nullptr };     /**< where block @p base starts */
    std::vector<std::size_t> bounds; /**< p + 1 value offsets */
    int base { 0 };                  /**< first block held */
    int root { 0 };                  /**< relative ranks count from here */

    /** @brief Where block @p k starts. */
    [[nodiscard]] std::byte* block(const ScheduleState& s, int k) const
    {
        return s.at(
            data, bounds[static_cast<std::size_t>(k)] - bounds[static_cast<std::size_t>(base)]
        );
    }

    /** @brief Values of blocks [first, last). */
    [[nodiscard]] std::size_t values(int first, int last) const
    {
        return bounds[static_cast<std::size_t>(last)] - bounds[static_cast<std::size_t>(first)];
    }
};

/** @brief A send (or receive) of blocks [first, last) of @p buffer with communicator rank @p peer.
 */
void transferBlocks(
    ScheduleState& s, bool isSend, int peer, const BlockBuffer& buffer, int first, int last
);

/** @brief One step of the binomial scatter seen by one rank: a send or a receive of a range. */
struct TreeStep
{
    bool isSend { false }; /**< send (scatter direction) */
    int peer { 0 };        /**< relative rank */
    int first { 0 };       /**< first block */
    int last { 0 };        /**< one past the last block */
};

/** @brief The binomial (divide-and-conquer) scatter steps of relative rank @p vr of @p p. */
[[nodiscard]] std::vector<TreeStep> scatterSteps(int vr, int p);

/** @brief The last block of the subtree of relative rank @p vr (p for the root). */
[[nodiscard]] int subtreeEnd(const std::vector<TreeStep>& steps, int p);

/** @brief Adds the binomial scatter rounds of @p buffer (held from block buffer.base on). */
void addTreeScatter(ScheduleState& s, const BlockBuffer& buffer);

/** @brief Adds the ring allgather rounds over the p blocks of @p buffer (base 0). */
void addRingAllGather(ScheduleState& s, const BlockBuffer& buffer);

/** @brief Adds binomial reduce rounds of @p in into @p out on @p root (order-preserving). */
void addTreeReduce(ScheduleState& s, const std::byte* in, std::byte* out, std::size_t n, int root);

/** @brief Adds binomial broadcast rounds of @p data from @p root. */
void addTreeBroadcast(ScheduleState& s, std::byte* data, std::size_t n, int root);

/** @brief The largest power of two not above @p p. */
[[nodiscard]] int powerOfTwoBelow(int p) noexcept;

/**
 * @brief The ranks taking part in recursive doubling or halving when p is not a power of two:
 * of the first 2r ranks (r = p - 2^k) the odd ones stand for their pair.
 */
struct Fold
{
    int p2 { 1 };    /**< 2^k, the ranks taking part */
    int extra { 0 }; /**< r = p - p2 */
    int virt { -1 }; /**< this rank's index among the p2, or -1 when it sits out */

    /** @brief The folded ranks of a communicator of @p p ranks, seen from @p rank. */
    Fold(int rank, int p) noexcept;

    /** @brief The communicator rank standing for index @p v. */
    [[nodiscard]] int real(int v) const noexcept { return v < extra ? 2 * v + 1 : v + extra; }

    /** @brief The first communicator rank index @p v stands for. */
    [[nodiscard]] int first(int v) const noexcept { return v < extra ? 2 * v : v + extra; }

    /** @brief True on ranks that sit out (the even ones of the first 2r). */
    [[nodiscard]] bool sitsOut() const noexcept { return virt < 0; }
};

/**
 * @brief Recursive halving over the p2 blocks of @p buffer (full vector at buffer.data). With a
 * @p source (same layout), the first round reads the values from it instead of from the buffer.
 */
void addRecursiveHalving(
    ScheduleState& s, const Fold& fold, const BlockBuffer& buffer, const std::byte* source = nullptr
);

/** @brief Recursive-doubling allgather over the p2 blocks of @p buffer. */
void addRecursiveDoublingGather(ScheduleState& s, const Fold& fold, const BlockBuffer& buffer);

/** @brief Folds the first 2r ranks in pairs: the even rank's @p n values reduced into the odd's. */
void addFoldIn(ScheduleState& s, const Fold& fold, std::byte* data, std::size_t n);

/** @brief The reverse of addFoldIn: the odd rank sends its @p n values back to the even one. */
void addFoldOut(ScheduleState& s, const Fold& fold, std::byte* data, std::size_t n);

/**
 * @brief Copies p blocks of @p each values from communicator order to relative-rank order of
 * @p root (@p toRelative), or back.
 */
void addRotation(
    ScheduleState& s,
    const std::byte* from,
    std::byte* to,
    std::size_t each,
    int root,
    bool toRelative
);

/** @brief Adds the divide-and-conquer scatter of @p countPerRank values per rank from @p root. */
void addScatterDivideAndConquer(
    ScheduleState& s, const std::byte* send, void* recv, std::size_t countPerRank, int root
);

/** @brief Non-commutative allreduce: binomial reduce in rank order to 0, binomial broadcast. */
void addOrderedAllReduce(ScheduleState& s, std::byte* data, std::size_t n);

/** @brief The p2 + 1 value offsets of the folded ranks' blocks of @p each values per rank. */
[[nodiscard]] std::vector<std::size_t> foldedBounds(const Fold& fold, std::size_t each);

} // namespace fieldsync::mpi::algorithms
