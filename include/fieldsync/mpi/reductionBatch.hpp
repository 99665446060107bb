// SPDX-License-Identifier: MIT
// ReductionBatch: several scalar reductions of mixed types and ops fused into one allreduce
// (doc/collectives.md, "Fused scalar reductions").
#pragma once

#include "fieldsync/mpi/algorithm.hpp"
#include "fieldsync/mpi/reduceOp.hpp"
#include "fieldsync/mpi/request.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <source_location>
#include <type_traits>
#include <vector>

#include <mpi.h>

namespace fieldsync::mpi
{

namespace detail
{

/** @brief The scalar types a ReductionBatch takes, as stored in a slot's code. */
enum class BatchType : std::uint8_t
{
    Int,       /**< int */
    UInt,      /**< unsigned int */
    Long,      /**< long */
    ULong,     /**< unsigned long */
    LongLong,  /**< long long */
    ULongLong, /**< unsigned long long */
    Float,     /**< float */
    Double,    /**< double */
    Bool       /**< bool */
};

/** @brief The BatchType of T (only for the types ReductionBatchScalar admits). */
template<typename T>
constexpr BatchType batchTypeOf() noexcept
{
    if constexpr (std::is_same_v<T, int>)
    {
        return BatchType::Int;
    }
    else if constexpr (std::is_same_v<T, unsigned>)
    {
        return BatchType::UInt;
    }
    else if constexpr (std::is_same_v<T, long>)
    {
        return BatchType::Long;
    }
    else if constexpr (std::is_same_v<T, unsigned long>)
    {
        return BatchType::ULong;
    }
    else if constexpr (std::is_same_v<T, long long>)
    {
        return BatchType::LongLong;
    }
    else if constexpr (std::is_same_v<T, unsigned long long>)
    {
        return BatchType::ULongLong;
    }
    else if constexpr (std::is_same_v<T, float>)
    {
        return BatchType::Float;
    }
    else if constexpr (std::is_same_v<T, double>)
    {
        return BatchType::Double;
    }
    else
    {
        return BatchType::Bool;
    }
}

struct ReductionBatchState;

} // namespace detail

/** @brief The scalar types a ReductionBatch fuses: int, long, long long (and unsigned), float,
 * double, bool. */
template<typename T>
concept ReductionBatchScalar = std::is_same_v<T, int> || std::is_same_v<T, unsigned> ||
    std::is_same_v<T, long> || std::is_same_v<T, unsigned long> || std::is_same_v<T, long long> ||
    std::is_same_v<T, unsigned long long> || std::is_same_v<T, float> ||
    std::is_same_v<T, double> || std::is_same_v<T, bool>;

/**
 * @brief Several scalar reductions of mixed types and ops, run as one allreduce.
 *
 * add() registers a variable of the caller and its op (sum of residuals, max of a CFL number,
 * min of a time step...). run() reads every registered variable, reduces them all over the
 * communicator in one MPI_Allreduce of a packed buffer with one combined user op, and writes
 * each result back into its variable. start() does the same without blocking: the values are
 * read at start(), the results are written when wait() (or a test() that returns true)
 * completes the reduction, so it can overlap a halo exchange. A batch is built once and run as
 * often as needed (each run reads the variables again); every rank must add the same types and
 * ops in the same order, as for any collective.
 *
 * The ops an entry takes follow the collectives: integers Sum, Prod, Min, Max, LAnd, LOr, LXor,
 * BAnd, BOr, BXor; float and double Sum, Prod, Min, Max; bool LAnd, LOr, LXor. MinLoc and
 * MaxLoc (int, long, long long, float, double) reduce a value with its location, added with
 * add(value, location, op): the largest CFL number and the cell where it occurs come in the same
 * allreduce as the residuals. The combined op
 * and its datatype are created at the first use and freed when MPI is finalised.
 *
 * run() is always the MPI library's MPI_Allreduce. start() runs the algorithm the batch was
 * built with: Algorithm::Native, MPI_Iallreduce on the communicator; or
 * Algorithm::RecursiveDoubling, fieldsync's own recursive doubling (one round of messages on 2
 * ranks, ceil(log2 p) on p, on the communicator's private duplicate), whose rounds every test()
 * moves on. Left unset (the default), start() runs RecursiveDoubling for a batch of at most
 * ownAlgorithmBytes packed bytes and Native above: MPI's non-blocking allreduce may take
 * several rounds that each move on only inside an MPI call, so less of it hides behind the
 * caller's work (doc/collectives.md, "Fused scalar reductions").
 *
 * Errors (fieldsync::Error naming the call site and rank): an op the type does not take,
 * add(), run() or start() while a started reduction is in flight, wait() with none in flight
 * (never started, or waited for already), MPI not running, MPI_COMM_NULL, an algorithm other
 * than Native or RecursiveDoubling.
 */
class ReductionBatch
{
public:
    /** @brief The largest packed batch (bytes) whose start() runs RecursiveDoubling when no
     * algorithm is given: a few dozen scalars. */
    static constexpr std::size_t ownAlgorithmBytes { 256 };

    /**
     * @brief An empty batch on @p comm (the communicator every run uses) whose start() runs
     * @p algorithm: Native or RecursiveDoubling; unset, chosen by the batch's size (above).
     * @throws Error for MPI_COMM_NULL, or an algorithm other than Native or RecursiveDoubling.
     */
    explicit ReductionBatch(
        MPI_Comm comm,
        std::optional<Algorithm> algorithm = std::nullopt,
        std::source_location where = std::source_location::current()
    );

    /** @brief The signature before the algorithm: ReductionBatch(comm, std::nullopt, where). */
    [[deprecated("pass the algorithm first: ReductionBatch(comm, std::nullopt, where)"
    )]] ReductionBatch(MPI_Comm comm, std::source_location where)
        : ReductionBatch(comm, std::nullopt, where)
    {
    }

    /** @brief Completes a reduction still in flight (logging an error, as Request does). */
    ~ReductionBatch();

    /** @brief Moves the batch, with any reduction in flight; @p other becomes empty. */
    ReductionBatch(ReductionBatch&& other) noexcept;

    /** @brief Completes this batch's reduction in flight, then takes over @p other's. */
    ReductionBatch& operator=(ReductionBatch&& other) noexcept;

    ReductionBatch(const ReductionBatch&) = delete;
    ReductionBatch& operator=(const ReductionBatch&) = delete;

    /**
     * @brief Registers @p value, reduced with @p op by every later run() or start(); the
     * variable must outlive the batch's runs: the batch keeps its address, so a local added in
     * a scope that ends before run() is undefined behaviour (not detected; AddressSanitizer
     * reports it). clear() forgets the entries. Returns the batch, so adds chain.
     * @throws Error when @p op is not defined on T, or while a reduction is in flight.
     */
    template<ReductionBatchScalar T>
    ReductionBatch&
    add(T& value, ReduceOp op, std::source_location where = std::source_location::current())
    {
        addEntry(&value, detail::batchTypeOf<T>(), op, nullptr, where);
        return *this;
    }

    /**
     * @brief Registers a MinLoc or MaxLoc entry, as MPI_MINLOC and MPI_MAXLOC reduce a value
     * and an index: after each run, @p value holds the smallest (MinLoc) or largest (MaxLoc)
     * value over the ranks and @p location the location a rank passed with it; of equal values
     * the lowest location wins. The location is what the caller chooses (a cell's global id,
     * a rank). Both variables must outlive the batch's runs. Returns the batch.
     * @throws Error when @p op is not MinLoc or MaxLoc, or T not int, long, long long, float or
     * double (the types MPI pairs with an index), or while a reduction is in flight.
     */
    template<ReductionBatchScalar T>
    ReductionBatch&
    add(T& value,
        std::int64_t& location,
        ReduceOp op,
        std::source_location where = std::source_location::current())
    {
        addEntry(&value, detail::batchTypeOf<T>(), op, &location, where);
        return *this;
    }

    /** @brief How many variables are registered. */
    [[nodiscard]] std::size_t size() const noexcept;

    /** @brief Whether no variable is registered (run() and start() then do nothing). */
    [[nodiscard]] bool empty() const noexcept;

    /** @brief Forgets every registered variable. @throws Error while a reduction is in flight. */
    void clear(std::source_location where = std::source_location::current());

    /**
     * @brief Blocking: reduces every registered variable over the communicator in one
     * MPI_Allreduce and writes the results back. @throws Error while a reduction is in flight,
     * or for a failing MPI call.
     */
    void run(std::source_location where = std::source_location::current());

    /**
     * @brief Non-blocking: reads the variables now and starts one allreduce (startAlgorithm():
     * MPI_Iallreduce, or fieldsync's recursive doubling); the results are written back by
     * wait() or by a test() that returns true.
     * @throws Error when a reduction is already in flight, or for a failing MPI call.
     */
    void start(std::source_location where = std::source_location::current());

    /** @brief The algorithm start() runs for the entries registered now (the one given to the
     * constructor, else chosen by the packed size). */
    [[nodiscard]] Algorithm startAlgorithm() const noexcept;

    /**
     * @brief Completes the started reduction and writes the results (waiting as Request::wait
     * does, with its time-out report).
     * @throws Error when no reduction is in flight (never started, or already waited for).
     */
    void wait(std::source_location where = std::source_location::current());

    /** @brief Moves the started reduction on without blocking (fieldsync's recursive doubling:
     * posts its next round once the last one's messages have arrived) and completes it if it
     * has finished; true once the results are written. @throws Error when no reduction is in
     * flight. */
    [[nodiscard]] bool test(std::source_location where = std::source_location::current());

    /** @brief Whether a started reduction has not been completed yet. */
    [[nodiscard]] bool inFlight() const noexcept;

private:
    /** @brief Registers one entry (type-erased add); @p location for MinLoc and MaxLoc only. */
    void addEntry(
        void* value,
        detail::BatchType type,
        ReduceOp op,
        std::int64_t* location,
        const std::source_location& where
    );

    std::unique_ptr<detail::ReductionBatchState> state_; /**< entries and packed buffer */
    Request request_;                                    /**< the reduction in flight */
};

} // namespace fieldsync::mpi
