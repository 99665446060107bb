// SPDX-License-Identifier: MIT
// Internal: check mode of a Communicator's exchanges (doc/reliability.md, "Check mode of the halo
// exchange"), held by its state only when on.
#pragma once

#include "exchange.hpp"
#include "exchangeCheck.hpp"

#include "fieldsync/halo/duplexBuffer.hpp"

#include <cstdint>
#include <functional>
#include <source_location>
#include <string>
#include <vector>

#include <mpi.h>

namespace fieldsync::halo
{

class CommunicatorState;

/**
 * @brief Check mode wrapped around the steps of a Communicator's exchanges, with the buffer's
 * post, test and wait: at the start, seal (a header and a checksum per message) and send the
 * headers on the Communicator's check tag; in the test and the wait, compare the headers as they
 * arrive, then the checksums; at finalise, the cells sent in place. On a mismatch every message
 * is settled, the peers are told, and the step throws.
 */
class CheckMode
{
public:
    /** @brief Check mode of @p state (Communicator @p id: other Communicators' headers differ). */
    CheckMode(CommunicatorState& state, std::uint64_t id) : state_(state), id_(id) {}

    /** @brief Posts the sends of @p exchange: seal (headers, checksums), sends, headers. */
    void postSends(
        Exchange& exchange,
        DuplexBuffer& buffer,
        const Fields& fields,
        std::size_t stride,
        const std::source_location& where
    );
    /** @brief One test: headers first (compared), then the messages (checksums). */
    bool test(Exchange& exchange, const std::source_location& where);
    /** @brief The one wait over test, listening for the peers' notices. */
    void wait(Exchange& exchange, const std::source_location& where);
    /** @brief At finalise: the send cells sent in place did not change. */
    void checkInPlace(Exchange& exchange, const std::source_location& where);
    /**
     * @brief For an exchange whose headers are not all compared: each peer that started another
     * key instead, named (empty when none).
     */
    [[nodiscard]] std::string otherKeys(Exchange& exchange);
    /**
     * @brief After a failed check: settles every message (drains the peers' messages of other
     * keys, cancels the receives nobody will send, completes the rest), releases the exchange,
     * tells the peers (unless a peer's notice found it) and throws @p error.
     */
    [[noreturn]] void
    fail(Exchange& exchange, const std::string& error, const std::source_location& where);

    // --- the mailbox: every header that arrived and no exchange took yet. Headers are matched
    // by sender and key, so ranks may start the exchanges they share in different orders; MPI
    // keeps one sender's messages in order, so a sender's headers of one key are taken in its
    // start order, and every header a correct program sends is taken by its exchange.

    /** @brief Receives every header that arrived on @p tag of @p comm (never blocks). */
    void pump(MPI_Comm comm, int tag, const std::source_location& where);
    /** @brief Moves the oldest header from @p source of exchange @p key into @p out, if any. */
    bool take(int source, std::uint64_t key, CheckHeader& out);
    /** @brief As take, for an exchange other than @p key (what @p source started instead). */
    bool takeOther(int source, std::uint64_t key, CheckHeader& out);
    /** @brief What arrived from @p source that no exchange took, for time-out reports. */
    [[nodiscard]] std::string describe(int source) const;

private:
    /** @brief One header and its sender. */
    struct Arrival
    {
        int source { 0 };      /**< the sender's rank */
        CheckHeader header {}; /**< its header */
    };

    /** @brief Moves the oldest arrival that @p match accepts into @p out. */
    bool takeIf(CheckHeader& out, const std::function<bool(const Arrival&)>& match);

    CommunicatorState& state_;     /**< the Communicator checked */
    std::uint64_t id_;             /**< its identifier (headers of another one are dropped) */
    std::vector<Arrival> arrived_; /**< headers not taken yet, in arrival order */
};

} // namespace fieldsync::halo
