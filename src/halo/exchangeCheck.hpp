// SPDX-License-Identifier: MIT
// Internal: check mode of one halo exchange (doc/reliability.md, "Check mode of the halo
// exchange"): a header and a checksum per message, compared by the receiver.
#pragma once

#include "engineNames.hpp"

#include <cstddef>
#include <algorithm>
#include <cstdint>
#include <source_location>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <mpi.h>

namespace fieldsync::halo
{

/**
 * @brief The header of one message of an exchange in check mode: what the sender started, sent
 * beside the message on the Communicator's one check tag (so a rank that started another key
 * receives it instead of waiting on another tag). Plain bytes, the same layout on every rank.
 */
struct CheckHeader
{
    static constexpr std::size_t textBytes { 64 }; /**< size of the key and call-site texts */

    std::uint64_t key { 0 };       /**< FNV-1a (32 bit) of the key's name; bit 32: reverse */
    std::uint64_t counter { 0 };   /**< exchanges of this key the sender started, this one too */
    std::uint64_t type { 0 };      /**< FNV-1a (64 bit) of the element type's name */
    std::uint64_t cellBytes { 0 }; /**< bytes per cell: value size x components of all fields */
    std::uint64_t bytes { 0 };     /**< bytes of the message */
    std::uint64_t cells { 0 };     /**< hash of the cells sent: global ids, else local indices */
    std::uint64_t checksum { 0 };  /**< checksum of the message's bytes, computed after pack */
    std::uint64_t comm { 0 };      /**< the Communicator's identifier (stale headers: ignored) */
    std::int32_t tag { -1 };       /**< MPI tag of the message; -1: neighbourhood collective */
    std::int32_t globalIds { 0 };  /**< 1: cells hashes global ids (the receiver compares it) */
    char keyName[textBytes] {};    /**< the key's name (its end, after "...", when longer) */
    char site[textBytes] {};       /**< the start's call site file:line (its end when longer) */
    char typeName[32] {};          /**< the element type's (mangled) name (its end) */
};

/** @brief A header text as a string (it may fill its array without a terminating zero). */
template<std::size_t N>
std::string headerText(const char (&chars)[N])
{
    return { chars, static_cast<std::size_t>(std::find(chars, chars + N, '\0') - chars) };
}

class CheckMode;

/**
 * @brief The messages of @p half, in the order its transport posts them: the slots that are
 * neither this rank nor empty, with their peers' ranks.
 */
void messagesOf(
    const CommBufferCore& half, std::vector<std::size_t>& slots, std::vector<int>& ranks
);

/**
 * @brief The check-mode state of one exchange (a key of a Communicator): this rank's header,
 * the headers sent to and received from each neighbour with their requests, and the checksums.
 * Made at the first start of the key in check mode; the headers are reused by every start.
 * Messages are the neighbour slots of a CommBufferCore that are neither this rank nor empty,
 * in slot order: the order of the transport's messages.
 */
class ExchangeCheck
{
public:
    ExchangeCheck() = default;
    /** @brief Completes the header messages still in flight (a destructor cannot throw). */
    ~ExchangeCheck();
    ExchangeCheck(const ExchangeCheck&) = delete;
    ExchangeCheck& operator=(const ExchangeCheck&) = delete;
    ExchangeCheck(ExchangeCheck&&) = delete;
    ExchangeCheck& operator=(ExchangeCheck&&) = delete;

    /** @brief This rank's header for the start being made (bytes, cells, checksum per message). */
    [[nodiscard]] CheckHeader& mine() noexcept { return mine_; }

    /** @brief The exchanges of this key started so far (the header's counter). */
    [[nodiscard]] std::uint64_t& started() noexcept { return started_; }

    /**
     * @brief Before the sends are posted: the header of each send message, with the checksum of
     * its bytes as packed (or, in place, of the send cells); @p cells per send slot. With the
     * fault `corrupt` (FIELDSYNC_FAULTS) flips a byte of a packed message afterwards. First
     * completes the header messages of an earlier start still in flight.
     */
    void seal(const CommBufferCore& send, std::span<const std::uint64_t> cells);

    /**
     * @brief After the sends are posted: sends the headers; the peers' headers are awaited in
     * the Communicator's mailbox (headersDone).
     */
    void
    post(const CommBufferCore& receive, MPI_Comm comm, int tag, const std::source_location& where);

    /**
     * @brief Takes this exchange's headers from @p mailbox (received first, on @p tag of
     * @p comm); true when every peer's header is there and this rank's were sent.
     */
    [[nodiscard]] bool
    headersDone(CheckMode& mailbox, MPI_Comm comm, int tag, const std::source_location& where);

    /**
     * @brief After the wait timed out before every header came: for each peer whose header
     * is missing but whose header of another exchange arrived, "rank me started key A at ...
     * but rank p started key B at ..."; that header then stands in for the missing one (so
     * drainOthers takes the message it announced). Empty when there is none.
     */
    [[nodiscard]] std::string otherKeys(CheckMode& mailbox, int me);

    /**
     * @brief The differences between each received header and what this rank expects (its own
     * header, the receive sizes, @p cells per receive slot); empty when they agree.
     */
    [[nodiscard]] std::string
    compare(const CommBufferCore& receive, std::span<const std::uint64_t> cells, int me) const;

    /** @brief After the receives completed: the messages whose checksum differs; or empty. */
    [[nodiscard]] std::string verifyReceived(const CommBufferCore& receive, int me);

    /** @brief At finalise: the in-place send messages whose cells changed since the start. */
    [[nodiscard]] std::string verifyInPlace(const CommBufferCore& send, int me);

    /**
     * @brief After a failed comparison: receives (into scratch memory) each message whose
     * header names another tag than this exchange's, so its sender completes; returns, per
     * receive message, whether this rank's own receive must be cancelled (its peer sent
     * nothing on this exchange's tag). Under the time-out; never throws.
     */
    [[nodiscard]] std::span<const char> drainOthers(MPI_Comm comm, std::string_view name) noexcept;

    /** @brief Completes (or cancels) the header messages in flight; false when one could not. */
    bool finishHeaders(std::string_view name) noexcept;

    /**
     * @brief The headers still awaited, e.g. "check header from rank 1 (rank 1 started key
     * 'b' at x.cpp:12)" with what else arrived from that rank, and unsent headers.
     */
    [[nodiscard]] std::string describePending(const CheckMode& mailbox);

    /** @brief Whether a header from @p rank is still awaited in this exchange. */
    [[nodiscard]] bool awaitsHeaderFrom(int rank) const noexcept;

    /** @brief Whether the received headers were compared (and agreed) in this exchange. */
    bool compared { false };
    /** @brief Whether the received checksums were verified in this exchange. */
    bool verified { false };

private:
    /** @brief The checksum of @p bytes at @p data in @p space (copied to the host if needed). */
    std::uint64_t
    checksumOf(const mpi::detail::SpaceOps& space, const char* data, std::size_t bytes);

    CheckHeader mine_;                     /**< this rank's header (per-message fields unset) */
    std::uint64_t started_ { 0 };          /**< exchanges of the key started */
    std::vector<CheckHeader> out_;         /**< headers sent, one per send message */
    std::vector<CheckHeader> in_;          /**< headers received, one per receive message */
    std::vector<std::size_t> outSlots_;    /**< send slot of each send message */
    std::vector<std::size_t> inSlots_;     /**< receive slot of each receive message */
    std::vector<int> outRanks_;            /**< peer of each send message */
    std::vector<int> inRanks_;             /**< peer of each receive message */
    std::vector<MPI_Request> outRequests_; /**< header sends */
    std::vector<char> found_;              /**< per receive message: its header was taken */
    std::vector<char> cancel_;             /**< drainOthers' answer */
    std::vector<char> scratch_;            /**< host copy of device bytes; drained messages */
};

/** @brief 64-bit checksum of @p bytes host bytes: FNV-1a over 8-byte words, then the tail. */
[[nodiscard]] std::uint64_t checksum64(const char* data, std::size_t bytes) noexcept;

} // namespace fieldsync::halo
