// SPDX-License-Identifier: MIT
// Internal: the notices by which a rank that left a halo exchange with an Error releases the
// peers waiting on it (doc/reliability.md, "No rank left hanging").
#pragma once

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
 * @brief The notices a Communicator sent (kept until MPI is done with them) and received (kept
 * until the exchange they name waits, or a later start of it makes them stale). Nothing here
 * runs in a correct program's exchange: notices are sent only after an Error, and received only
 * by a wait past its spin phase.
 */
class NoticeBox
{
public:
    /** @brief Completes what this rank sent (or leaves it to MPI) and drops what arrived. */
    ~NoticeBox();

    NoticeBox() = default;
    NoticeBox(const NoticeBox&) = delete;
    NoticeBox& operator=(const NoticeBox&) = delete;
    NoticeBox(NoticeBox&&) = delete;
    NoticeBox& operator=(NoticeBox&&) = delete;

    /**
     * @brief Sends a notice with @p text to each of @p peers on @p tag of @p comm (never
     * blocks, never throws: it runs while an Error leaves the exchange).
     */
    void send(
        MPI_Comm comm, int tag, std::span<const int> peers, Notice notice, const std::string& text
    ) noexcept;

    /** @brief Receives every notice on @p tag of @p comm; keeps those of Communicator @p id. */
    void pump(MPI_Comm comm, int tag, std::uint64_t id, const std::source_location& where);

    /**
     * @brief The notice of exchange @p key's start @p counter from one of @p peers, taken out;
     * notices of earlier starts of @p key are dropped (stale: that start is over).
     */
    std::optional<Notice>
    take(std::uint64_t key, std::uint64_t counter, std::span<const int> peers);

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

    std::deque<std::unique_ptr<Outgoing>> sent_; /**< each at a stable address for MPI */
    std::vector<Notice> arrived_;                /**< received, not taken yet */
    bool sentAny_ { false };                     /**< a notice was sent */
};

} // namespace fieldsync::halo
