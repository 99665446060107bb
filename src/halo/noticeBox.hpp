// SPDX-License-Identifier: MIT
// Internal: the notices by which a rank that left a halo exchange with an Error releases the
// peers waiting on it (doc/reliability.md, "No rank left hanging").
#pragma once

#include "exchange.hpp"

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <source_location>
#include <span>
#include <string>
#include <vector>

#include <mpi.h>

namespace fieldsync::halo
{

/**
 * @brief One notice: "rank R left exchange K (its Nth start) with this Error". Sent on the
 * Communicator's notice tag; @p comm is the Communicator's identifier, so a notice queued for a
 * freed Communicator and received by a later one that reuses its MPI context is ignored.
 */
struct Notice
{
    static constexpr std::size_t textBytes { 472 }; /**< the Error's text (its start) */

    std::uint64_t comm { 0 };    /**< the Communicator's identifier (the same on every rank) */
    std::uint64_t key { 0 };     /**< the exchange's key hash; bit 32: reverse */
    std::uint64_t counter { 0 }; /**< starts of this key the sender attempted, this one too */
    std::int32_t rank { -1 };    /**< the sender */
    std::int32_t length { 0 };   /**< bytes of text used */
    std::int32_t inStart { 0 };  /**< 1: the sender failed in startComm (its tag is spent) */
    std::int32_t settled { 0 };  /**< 1: it failed later, after every message it had with the
                                      peers in this start completed (their data from it comes) */
    char text[textBytes] {};     /**< the Error's what(), cut with "..." when longer */

    /** @brief The text as a string. */
    [[nodiscard]] std::string message() const { return { text, static_cast<std::size_t>(length) }; }
};

/**
 * @brief Receives every message of @p bytes bytes already waiting on @p tag of @p comm into
 * @p into, one after the other, calling @p arrived with each sender's rank (never blocks).
 */
void receiveWaiting(
    MPI_Comm comm,
    int tag,
    void* into,
    int bytes,
    const std::function<void(int)>& arrived,
    const std::source_location& where
);

/**
 * @brief No rank left hanging (doc/reliability.md): the notices a Communicator sent to the peers
 * of an exchange it left with an Error (kept until MPI is done with them) and received (kept
 * until the exchange they name listens, or a later start of it makes them stale), and whether
 * the Error in flight came from one. Nothing here runs in a correct program's exchange: notices
 * are sent only after an Error, and received only by a wait that has lasted 1 ms (once per
 * millisecond: mpi::waitWithTimeout) or every listenEvery-th incomplete isComplete.
 */
class NoticeBox
{
public:
    static constexpr std::uint32_t listenEvery { 16 }; /**< isComplete listens every N tests */

    /** @brief Notices of Communicator @p id (rank @p rank) on @p tag of @p comm. */
    NoticeBox(MPI_Comm comm, int tag, std::uint64_t id, int rank) noexcept
        : comm_(comm), tag_(tag), id_(id), rank_(rank)
    {
    }
    /** @brief Completes what this rank sent (or leaves it to MPI) and drops what arrived. */
    ~NoticeBox();

    NoticeBox(const NoticeBox&) = delete;
    NoticeBox& operator=(const NoticeBox&) = delete;
    NoticeBox(NoticeBox&&) = delete;
    NoticeBox& operator=(NoticeBox&&) = delete;

    /**
     * @brief Sends the notice of @p exchange's current start with @p error to @p peers (never
     * blocks, never throws: it runs while an Error leaves the exchange). @p inStart: the Error
     * left startComm (its tag is spent); @p settled: it failed later, after every message of
     * this start with the peers completed (their data from it comes).
     */
    void notify(
        const Exchange& exchange,
        std::span<const int> peers,
        const char* error,
        bool inStart,
        bool settled
    ) noexcept;

    /**
     * @brief Receives every notice queued for this Communicator, then takes out the one of
     * @p exchange's current start from one of @p peers (earlier starts' are dropped as stale).
     */
    std::optional<Notice>
    heard(const Exchange& exchange, std::span<const int> peers, const std::source_location& where);

    /** @brief isComplete's cadence: whether this incomplete test of @p exchange listens. */
    [[nodiscard]] static bool due(Exchange& exchange) noexcept
    {
        return ++exchange.polls % listenEvery == 0;
    }

    /** @brief The Communicator's identifier (the same on every rank). */
    [[nodiscard]] std::uint64_t id() const noexcept { return id_; }

    /** @brief Whether the Error in flight came from a notice (settled; not passed on). */
    [[nodiscard]] bool raised() const noexcept { return raised_; }
    /** @brief Sets (a notice ends the exchange) or clears (a test or wait begins) raised(). */
    void setRaised(bool raised) noexcept { raised_ = raised; }

    /**
     * @brief Receives and drops every message still queued on @p comm with @p tag (a
     * Communicator's destruction: nothing meant for it may reach a later Communicator that
     * reuses its MPI context or its tags). MPI_ANY_TAG: whatever the tag, for a communicator
     * nothing else uses.
     */
    static void drain(MPI_Comm comm, int tag = MPI_ANY_TAG) noexcept;

    /**
     * @brief Whether a notice was ever sent: a peer may then receive it after this
     * Communicator's communicator is freed, and a later communicator that reused its MPI context
     * would meet a message out of its sequence (Open MPI loses later messages of that pair:
     * seen as hangs on 8 ranks), so the communicator is kept (CommunicatorState's destructor).
     */
    [[nodiscard]] bool sentAny() const noexcept { return sentAny_; }

private:
    /** @brief A notice sent, with its request (its bytes must stay until MPI is done). */
    struct Outgoing
    {
        Notice notice {};                         /**< the bytes MPI sends */
        MPI_Request request { MPI_REQUEST_NULL }; /**< the send */
    };

    MPI_Comm comm_;                              /**< the Communicator's communicator */
    int tag_;                                    /**< its notice tag */
    std::uint64_t id_;                           /**< its identifier (stale notices differ) */
    int rank_;                                   /**< this rank */
    std::deque<std::unique_ptr<Outgoing>> sent_; /**< each at a stable address for MPI */
    std::vector<Notice> arrived_;                /**< received, not taken yet */
    bool sentAny_ { false };                     /**< a notice was sent */
    bool raised_ { false };                      /**< the Error in flight came from a notice */
};

} // namespace fieldsync::halo
