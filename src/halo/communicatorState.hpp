// SPDX-License-Identifier: MIT
// Internal: everything a Communicator holds, and the named steps of one exchange.
#pragma once

#include "backEnds.hpp"
#include "bufferPool.hpp"
#include "checkMailbox.hpp"
#include "exchange.hpp"
#include "exchangeContext.hpp"
#include "exchangeOptions.hpp"
#include "exchangeTable.hpp"
#include "noticeBox.hpp"
#include "pattern.hpp"
#include "profilingRegion.hpp"

#include "fieldsync/core/clock.hpp"
#include "fieldsync/halo/communicator.hpp"

#include <memory>
#include <span>
#include <optional>

namespace fieldsync::halo
{

/**
 * @brief The state behind a Communicator (which holds it by pointer: a move moves one pointer,
 * and exchanges and buffers never move). Its member functions are the steps of an exchange:
 * start = begin, validate (records the field shapes), claim, bindInPlace, post receives, pack, post
 * sends, markStarted; finish = find, checkSameFields, waitFor, unpack, release.
 */
class CommunicatorState
{
public:
    /**
     * @brief Takes @p context (its communicator, tags and identifier, agreed on every rank) and
     * checks the maps (with @p checked, GhostList's maps, only what their set-up did not check).
     */
    CommunicatorState(
        ExchangeContext context,
        RankSimplexCommMap sendMap,
        RankSimplexCommMap receiveMap,
        const std::source_location& where,
        bool checked = false
    );

    /** @brief Logs the exchanges in flight; the pool then cancels their messages. */
    ~CommunicatorState();
    /**
     * @brief At destruction: drops what peers sent this Communicator and it never received
     * (on a shared communicator only its own tags); keeps a communicator of its own for the
     * rest of the process when late messages may still come.
     */
    void drainOwnTags() noexcept;

    CommunicatorState(const CommunicatorState&) = delete;
    CommunicatorState& operator=(const CommunicatorState&) = delete;
    CommunicatorState(CommunicatorState&&) = delete;
    CommunicatorState& operator=(CommunicatorState&&) = delete;

    /** @brief The padded array of a StructuredBlock's maps (none for other maps). */
    [[nodiscard]] const std::optional<BlockShape>& blockShape() const noexcept
    {
        return pattern_.blockShape();
    }

    // --- commit (commit.cpp) ---
    /**
     * @brief Checks the pattern, builds the graphs, chooses the back end (the whole commit).
     * With @p checked (GhostList: the pattern agrees and was checked by construction, with its
     * errors already raised on every rank) nothing is checked and no rank waits for the others.
     */
    void
    commit(const CommitOptions& options, const std::source_location& where, bool checked = false);
    /** @brief Local: no send index is a ghost, no receive index an owned cell. */
    std::string checkOwnership(const CommitOptions& options) const;
    /** @brief Collective (sparse exchange): counts, neighbours and order agree between pairs. */
    std::string checkPattern(const CommitOptions& options, const std::source_location& where);
    /**
     * @brief Collective: times each available back end (the registry's) on a few real
     * exchanges, agrees on the fastest and sets it up.
     */
    void timeBackEnds(const std::source_location& where);
    /** @brief Gives the pool buffer of @p exchange the back end's transports (BackEndSetUp). */
    void installBackEnd(Exchange& exchange, DuplexBuffer& buffer)
    {
        if (setUp_ != nullptr) // point-to-point: the buffer makes its own pair
        {
            setUp_->install(exchange, buffer, exchange.buffer);
        }
    }
    /** @brief Whether the back end in use is a neighbourhood collective (no tag, no in-place). */
    [[nodiscard]] bool neighbourhood() const noexcept { return backEnd_->collective; }

    // --- start (exchangeSteps.cpp) ---
    /** @brief Starts @p fields under @p key (the whole start: the steps below). */
    void start(const Fields& fields, const CommKey& key, bool reverse, ReverseOp op);
    /** @brief The steps of start (start() adds the notice to the peers after an Error). */
    void startSteps(const Fields& fields, const CommKey& key, bool reverse, ReverseOp op);
    /**
     * @brief Reads each field's shape once into @p shapes and checks it against the maps and
     * the op; returns values per cell.
     */
    std::size_t validate(
        const Fields& fields,
        const CommKey& key,
        bool reverse,
        ReverseOp op,
        std::vector<FieldShape>& shapes
    ) const;
    /** @brief Claims a pool buffer for @p exchange and sets it up for @p fields. */
    DuplexBuffer& claim(Exchange& exchange, const Fields& fields, std::size_t stride);
    /** @brief Lets contiguous neighbours go to MPI from and into the field directly. */
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

    // --- check mode (checkSteps.cpp) ---
    /** @brief At commit: the check setting and the hash of each neighbour's cells. */
    void setUpCheck(const CommitOptions& options);
    /** @brief Check mode's post of the sends: seal (headers, checksums), sends, headers. */
    void checkedSends(
        Exchange& exchange,
        DuplexBuffer& buffer,
        const Fields& fields,
        std::size_t stride,
        const std::source_location& where
    );
    /** @brief Check mode's test: headers first (compared), then the messages (checksums). */
    bool checkedTest(Exchange& exchange, const std::source_location& where);
    /** @brief Check mode's wait: the one wait over checkedTest. */
    void checkedWait(Exchange& exchange, const std::source_location& where);
    /** @brief Check mode at finalise: the send cells sent in place did not change. */
    void checkInPlace(Exchange& exchange, const std::source_location& where);
    /**
     * @brief After a failed check: settles every message (drains the peers' messages of other
     * keys, cancels the receives nobody will send, completes the rest), releases the exchange
     * and throws @p error.
     */
    [[noreturn]] void
    failCheck(Exchange& exchange, const std::string& error, const std::source_location& where);
    /**
     * @brief Ends an exchange that will not complete: cancels the receives @p cancel marks
     * (per receive message), completes the rest under the time-out, then releases the
     * exchange (its buffer stays claimed, never reused, when MPI may still touch it).
     * @p headersDone: check mode's headers were completed. Returns whether every message
     * completed (false: one was left to MPI, logged).
     */
    bool settle(
        Exchange& exchange,
        std::span<const char> cancel,
        bool headersDone,
        const std::source_location& where
    );

    // --- no rank left hanging (noticeSteps.cpp) ---
    /**
     * @brief After an Error left @p exchange on this rank: sends its text to the exchange's
     * peers (never throws). Not for an Error that a peer's notice raised. @p inStart: the
     * Error left startComm (the peers' messages of this start may still come, so the start's
     * tag is spent on this rank and on the peers the notice releases: markFailed); false
     * after a failed check, which drained every message. @p settled (after a failed check):
     * every message of this rank's start completed, so the peers' data from it will come.
     */
    void notifyPeers(
        const Exchange& exchange, const char* error, bool inStart, bool settled = false
    ) noexcept;
    /**
     * @brief The wait's listener: throws, after settling @p exchange, when a peer's notice says
     * it left this start of the exchange with an Error (one that failed at its finalise after
     * settling its messages leaves this exchange alone: its data comes, ours was taken).
     */
    void listen(Exchange& exchange, const std::source_location& where);
    /**
     * @brief isComplete's listener: every NoticeBox::listenEvery-th test of @p exchange that finds
     * it incomplete calls listen (one MPI_Iprobe of the notice tag when no notice is queued), so a
     * peer that only polls is released too; a complete exchange pays one increment.
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
    /**
     * @brief One test of @p exchange, listening for notices while it is incomplete
     * (listenWhilePolling); releases it after a failure that no notice settled.
     */
    bool testOnce(Exchange& exchange, const std::source_location& where);
    /** @brief testOnce, its time counted as wait time in the exchange's statistics. */
    bool test(Exchange& exchange, const std::source_location& where);
    /** @brief One test of every exchange in flight; whether all have completed. */
    bool progress(const std::source_location& where);
    /**
     * @brief Waits for @p exchange (releases it after a failed receive); returns the telemetry
     * stamp taken at its end (the start of the unpack).
     */
    std::int64_t wait(Exchange& exchange, const std::source_location& where);
    /**
     * @brief wait() past a first test that found @p exchange incomplete: the one wait, with the
     * listener for peers' notices (built only here).
     */
    void waitLoop(Exchange& exchange, DuplexBuffer& buffer, const std::source_location& where);
    /** @brief After an Error from a test or wait: releases a failed exchange. */
    void releaseAfterFailure(Exchange& exchange, const std::source_location& where);

    /** @brief The wait policy in force. */
    const mpi::WaitPolicy& policy() const noexcept { return options_.policy; }
    /** @brief A telemetry stamp (0 when timing is off). */
    std::int64_t stamp() const noexcept
    {
        return options_.timing ? telemetryTicks(options_.tsc) : 0;
    }
    /**
     * @brief The time between two stamps in telemetry ticks: the statistics add up ticks, and
     * Communicator::stats converts them to seconds (telemetrySecondsPerTick()), so no exchange
     * waits for the clock's calibration.
     */
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
    ExchangeOptions options_;             /**< the knobs */
    bool committed_ { false };            /**< commit() ran */
    bool check_ { false };                /**< check mode (CommitOptions::check) */
    CheckMailbox mailbox_;                /**< check mode: headers no exchange took yet */
    std::uint64_t id_ { 0 };              /**< this Communicator, the same on every rank */
    NoticeBox notices_;                   /**< no rank left hanging: the peers' notices */
};

} // namespace fieldsync::halo
