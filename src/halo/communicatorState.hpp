// SPDX-License-Identifier: MIT
// Internal: everything a Communicator holds, and the named steps of one exchange.
#pragma once

#include "backEnds.hpp"
#include "bufferPool.hpp"
#include "checkMode.hpp"
#include "exchange.hpp"
#include "exchangeContext.hpp"
#include "exchangeTable.hpp"
#include "noticeBox.hpp"
#include "pattern.hpp"
#include "profilingRegion.hpp"

#include "fieldsync/core/clock.hpp"
#include "fieldsync/halo/communicator.hpp"

#include <memory>
#include <span>

namespace fieldsync::halo
{

/**
 * @brief The state behind a Communicator (held by pointer: exchanges and buffers never move):
 * its parts (Pattern, ExchangeTable, BufferPool, the back end, CheckMode, NoticeBox) and the
 * steps of an exchange that orchestrate them (doc/architecture.md, "One halo exchange").
 */
class CommunicatorState
{
public:
    /** @brief Takes the agreed @p context; checks the maps (@p checked: only what is left). */
    CommunicatorState(
        ExchangeContext context,
        RankSimplexCommMap sendMap,
        RankSimplexCommMap receiveMap,
        const std::source_location& where,
        bool checked = false
    );

    /**
     * @brief Drops what peers sent and this Communicator never received (on a shared
     * communicator only its tags; its own is kept for the process when late messages may come),
     * logs the exchanges in flight; the pool then cancels their messages.
     */
    ~CommunicatorState();

    CommunicatorState(const CommunicatorState&) = delete;
    CommunicatorState& operator=(const CommunicatorState&) = delete;
    CommunicatorState(CommunicatorState&&) = delete;
    CommunicatorState& operator=(CommunicatorState&&) = delete;

    // --- commit (commit.cpp) ---
    /**
     * @brief Checks the pattern, builds the graphs, chooses the back end (the whole commit).
     * With @p checked (GhostList: the pattern agrees and was checked by construction, with its
     * errors already raised on every rank) nothing is checked and no rank waits for the others.
     */
    void
    commit(const CommitOptions& options, const std::source_location& where, bool checked = false);
    /** @brief Collective: times each back end on a few exchanges, sets up the fastest. */
    void timeBackEnds(const std::source_location& where);
    /** @brief Whether the back end in use is a neighbourhood collective (no tag, no in-place). */
    [[nodiscard]] bool neighbourhood() const noexcept { return backEnd_->collective; }

    // --- start (exchangeSteps.cpp) ---
    /** @brief Starts @p fields under @p key (the whole start: the steps below). */
    void start(const Fields& fields, const CommKey& key, bool reverse, ReverseOp op);
    /** @brief The steps of start (start() adds the notice to the peers after an Error). */
    void startSteps(const Fields& fields, const CommKey& key, bool reverse, ReverseOp op);
    /** @brief Reads each field's shape once into @p shapes, checks it; returns values per cell. */
    std::size_t validate(
        const Fields& fields,
        const CommKey& key,
        bool reverse,
        ReverseOp op,
        std::vector<FieldShape>& shapes
    ) const;
    /** @brief Claims a pool buffer for @p exchange and sets it up for @p fields. */
    DuplexBuffer& claim(Exchange& exchange, const Fields& fields, std::size_t stride);
    /** @brief Completes the pattern's PackPlan for @p fields into @p exchange.pack. */
    void choosePack(Exchange& exchange, DuplexBuffer& buffer, const Fields& fields) const;
    /** @brief Lets the lists the plan puts in place go to MPI from and into the field. */
    void
    bindInPlace(Exchange& exchange, DuplexBuffer& buffer, const Fields& fields, std::size_t stride);
    /** @brief Packs what does not go in place; fences; returns the pack time in telemetry ticks. */
    double packSends(
        const Exchange& exchange, DuplexBuffer& buffer, const Fields& fields, std::size_t stride
    );
    /** @brief After an Error during start: frees what the start claimed. */
    void abandon(Exchange& exchange, DuplexBuffer& buffer, const std::source_location& where);
    /** @brief Marks a started exchange in flight and records its telemetry. */
    void
    markStarted(Exchange& exchange, DuplexBuffer& buffer, std::int64_t startTime, double packTicks);

    // --- check mode (checkMode.cpp) and no rank left hanging (noticeSteps.cpp) ---
    /** @brief At commit: check mode on (a CheckMode) or off, the neighbours' cell hashes. */
    void setUpCheck(const CommitOptions& options);
    /**
     * @brief Ends an exchange that will not complete: cancels the receives @p cancel marks, the
     * rest complete under the time-out, releases it (a buffer MPI may touch stays claimed).
     * @p headersDone: check mode's headers completed. Whether every message completed.
     */
    bool settle(
        Exchange& exchange,
        std::span<const char> cancel,
        bool headersDone,
        const std::source_location& where
    );

    /**
     * @brief After an Error (not a peer's notice) left @p exchange on this rank: tells its peers
     * (NoticeBox::notify; never throws). @p inStart: it left startComm, so the tag is spent
     * (ExchangeTable::markFailed); @p settled: every message of this rank's start completed.
     */
    void notifyPeers(
        const Exchange& exchange, const char* error, bool inStart, bool settled = false
    ) noexcept;
    /**
     * @brief The wait's listener: throws, after settling @p exchange, when a peer's notice says
     * it left this start with an Error (not one that failed after its messages completed).
     */
    void listen(Exchange& exchange, const std::source_location& where);
    /**
     * @brief isComplete's listener: listens every NoticeBox::listenEvery-th incomplete test, so
     * a peer that only polls is released too; a complete exchange pays one increment.
     */
    void listenWhilePolling(Exchange& exchange, const std::source_location& where)
    {
        if (NoticeBox::due(exchange))
        {
            listen(exchange, where);
        }
    }
    // --- finish (exchangeSteps.cpp) ---
    /** @brief Waits for and unpacks @p exchange into @p fields (the whole finish). */
    void finish(const Fields& fields, Exchange& exchange, const std::source_location& where);
    /** @brief Throws unless @p fields are the fields started (shape by shape). */
    void checkSameFields(
        const Exchange& exchange, const Fields& fields, const std::source_location& where
    ) const;
    /** @brief Unpacks what did not arrive in place; returns whether anything was unpacked. */
    bool unpackReceives(const Exchange& exchange, DuplexBuffer& buffer, const Fields& fields);
    /** @brief Frees the exchange's buffer; the exchange is no longer in flight. */
    void release(Exchange& exchange) noexcept
    {
        if (exchange.buffer != Exchange::npos)
        {
            pool_.release(exchange.buffer);
        }
        exchange.buffer = Exchange::npos;
        if (exchange.keeper != nullptr)
        {
            exchange.keeper->drop(); // MPI is done with the fields
        }
        table_.setDone(exchange);
    }

    // --- test and wait (communicator.cpp) ---
    /** @brief One test, listenWhilePolling; releases after a failure no notice settled. */
    bool testOnce(Exchange& exchange, const std::source_location& where);
    /** @brief testOnce, its time counted as wait time in the exchange's statistics. */
    bool test(Exchange& exchange, const std::source_location& where);
    /** @brief One test of every exchange in flight; whether all have completed. */
    bool progress(const std::source_location& where);
    /** @brief Waits (releases after a failed receive); returns the stamp at its end. */
    std::int64_t wait(Exchange& exchange, const std::source_location& where);
    /** @brief wait() past a first incomplete test: the one wait, with the notices' listener. */
    void waitLoop(Exchange& exchange, DuplexBuffer& buffer, const std::source_location& where);
    /** @brief After an Error from a test or wait: releases a failed exchange. */
    void releaseAfterFailure(Exchange& exchange, const std::source_location& where);

    /** @brief The wait policy in force. */
    const mpi::WaitPolicy& policy() const noexcept { return *options_.waitPolicy; }
    /** @brief A telemetry stamp (0 when timing is off). */
    std::int64_t stamp() const noexcept { return options_.timing ? telemetryTicks(tsc_) : 0; }
    /** @brief Ticks between two stamps (stats() converts: no wait for the calibration). */
    double ticksBetween(std::int64_t from, std::int64_t to) const noexcept
    {
        return static_cast<double>(to - from);
    }

    mpi::MPIEnvironment env_;            /**< the communicator (shared, or its own) */
    std::shared_ptr<const void> shared_; /**< keeps a shared env_ (null: env_ is its own) */
    Pattern pattern_;                    /**< the maps (const once committed) */
    ExchangeTable table_;                /**< the keys, their tags, in flight and failed */
    const BackEndEntry* backEnd_ { backEnds().front() }; /**< in use (the first until commit) */
    std::unique_ptr<BackEndSetUp> setUp_; /**< its state (null: none), outlives the buffers */
    BufferPool pool_;                     /**< the buffers (destroyed first: cancels) */
    ExchangeOptions options_;             /**< the knobs (waitPolicy always set) */
    bool tsc_;                            /**< stamps read the time-stamp counter */
    bool profiling_;                      /**< a Kokkos tool was loaded: name regions */
    bool committed_ { false };            /**< commit() ran */
    std::unique_ptr<CheckMode> check_;    /**< check mode (null: off) */
    NoticeBox notices_;                   /**< no rank left hanging: the peers' notices */
};

} // namespace fieldsync::halo
