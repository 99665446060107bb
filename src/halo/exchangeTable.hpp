// SPDX-License-Identifier: MIT
// Internal: a Communicator's keys, their MPI tags, which are in flight and which failed.
#pragma once

#include "exchange.hpp"

#include "fieldsync/mpi/detail/tagWindow.hpp"

#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fieldsync::halo
{

/**
 * @brief A Communicator's keys (an Exchange each, at a stable address), the tags of its window,
 * the exchanges in flight and the starts that failed (their tag is spent).
 */
class ExchangeTable
{
public:
    /** @brief An empty table over the tags of @p tags. */
    explicit ExchangeTable(mpi::detail::TagWindow tags) : tags_(tags) {}

    /** @brief The Communicator's tags. */
    [[nodiscard]] const mpi::detail::TagWindow& tags() const noexcept { return tags_; }

    /** @brief The MPI tag of @p key's exchanges of that direction (a reverse one is salted). */
    [[nodiscard]] int tagOf(const CommKey& key, bool reverse) const noexcept
    {
        constexpr std::uint32_t reverseSalt { 0x9e3779b9U };
        return tags_.exchange(reverse ? key.hash() ^ reverseSalt : key.hash());
    }

    /** @brief Finds or creates @p key's exchange, counts the attempt; throws if its tag is busy. */
    Exchange& begin(const CommKey& key, bool reverse);

    /** @brief The exchange of @p key in flight: the key begun last without a search. */
    Exchange& byKey(const CommKey& key, bool reverse)
    {
        if (last_ != nullptr && last_->inFlight && last_->reverse == reverse && last_->key == key)
        {
            return *last_;
        }
        return searchKey(key, reverse);
    }

    /** @brief byKey's search of every exchange (an Error when none is in flight). */
    Exchange& searchKey(const CommKey& key, bool reverse);

    /** @brief The one exchange in flight holding the field at @p data (optionally one way). */
    Exchange&
    byField(const void* data, const std::source_location& where, std::optional<bool> reverse);

    /** @brief The exchange of @p key begun last when it is not in flight (a start that failed). */
    [[nodiscard]] Exchange* failedStart(const CommKey& key, bool reverse) const noexcept
    {
        const bool its = last_ != nullptr && last_->key == key && last_->reverse == reverse;
        return its && !last_->inFlight ? last_ : nullptr;
    }

    /** @brief Puts @p exchange in flight. */
    void setInFlight(Exchange& exchange) noexcept { set(exchange, true); }
    /** @brief @p exchange is no longer in flight. */
    void setDone(Exchange& exchange) noexcept { set(exchange, false); }

    /** @brief Whether any exchange is in flight. */
    [[nodiscard]] bool anyInFlight() const noexcept { return inFlight_ > 0; }
    /** @brief Every exchange, in the order their keys were first begun. */
    [[nodiscard]] std::deque<Exchange>& all() noexcept { return exchanges_; }
    /** @copydoc all */
    [[nodiscard]] const std::deque<Exchange>& all() const noexcept { return exchanges_; }

    /** @brief Forgets every key (none may be in flight: commit's probes). */
    void clear() noexcept
    {
        exchanges_.clear();
        last_ = nullptr;
        inFlight_ = 0;
    }

    /** @brief The keys in flight, for messages (" none" when none). */
    [[nodiscard]] std::string describeInFlight() const;
    /** @brief Logs each exchange in flight (a Communicator destroyed; check mode: an Error). */
    void reportInFlight() const noexcept;

    /**
     * @brief Records that a start of @p exchange failed with @p error (here or on a peer): a
     * later start of its MPI tag is refused, as the peers' stale messages may still arrive.
     */
    void markFailed(const Exchange& exchange, std::string_view error) noexcept;
    /** @brief Whether a start failed (late messages may still come). */
    [[nodiscard]] bool anyFailed() const noexcept { return !failures_.empty(); }

private:
    /** @brief Puts @p exchange in flight or not, counting. */
    void set(Exchange& exchange, bool inFlight) noexcept
    {
        inFlight_ = inFlight_ + (inFlight ? 1 : 0) - (exchange.inFlight ? 1 : 0);
        exchange.inFlight = inFlight;
    }
    /** @brief Throws when a start of @p exchange's MPI tag failed here. */
    void refuseFailed(const Exchange& exchange, const std::source_location& where) const;

    /** @brief A start that failed on this rank (notice sent or received): its tag is spent. */
    struct Failure
    {
        int tag { 0 };          /**< the MPI tag the peers' stale messages may still arrive on */
        bool reverse { false }; /**< a reverse exchange */
        std::string key;        /**< the key's name */
        std::string error;      /**< what ended it (its Error's text, or the peer's notice) */
    };

    mpi::detail::TagWindow tags_;    /**< the tags the Communicator uses */
    std::deque<Exchange> exchanges_; /**< every key seen (stable addresses) */
    Exchange* last_ { nullptr };     /**< the key begun last (no scan when restarted) */
    std::size_t inFlight_ { 0 };     /**< exchanges in flight (no scan when none) */
    std::vector<Failure> failures_;  /**< failed starts, one per tag (empty in a correct run) */
};

} // namespace fieldsync::halo
