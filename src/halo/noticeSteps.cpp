// SPDX-License-Identifier: MIT
// No rank left hanging (doc/reliability.md): a rank that leaves a halo exchange with an Error
// (bad input in startComm or finaliseComm, a failed check; not a time-out raised as an error,
// which leaves the exchange in flight with its sends posted) sends a notice to the exchange's
// peers; a peer's wait, once it has lasted 1 ms, listens for it (once per millisecond) and ends
// in an Error naming that rank and its message. Nothing here runs in a correct program's exchange.
#include "communicatorState.hpp"

#include "fieldsync/core/error.hpp"

#include <algorithm>

namespace fieldsync::halo
{

namespace
{
/**
 * @brief Whether @p exchange (in @p buffer) may still wait for something that involves @p rank:
 * a message with it in either direction, or (check mode) its header.
 */
bool awaits(const Exchange& exchange, DuplexBuffer& buffer, int rank) noexcept
{
    return buffer.receiveHalf().awaits(rank) || buffer.sendHalf().awaits(rank) ||
           (exchange.check != nullptr && exchange.check->awaitsHeaderFrom(rank));
}
} // namespace

void CommunicatorState::notifyPeers(
    const Exchange& exchange, const char* error, bool inStart, bool settled
) noexcept
{
    notices_.notify(exchange, pattern_.peers(), error, inStart, settled);
    if (inStart && !pattern_.peers().empty()) // no peer: no message could arrive late
    {
        table_.markFailed(exchange, error);
    }
}

void CommunicatorState::listen(Exchange& exchange, const std::source_location& where)
{
    const std::optional<Notice> notice = notices_.heard(exchange, pattern_.peers(), where);
    if (!notice)
    {
        return;
    }
    if (notice->inStart == 0 &&
        (notice->settled != 0 || !awaits(exchange, pool_[exchange.buffer], notice->rank)))
    {
        // it failed at its finalise (a failed check) after its messages of this start
        // completed, or after this rank's messages with it were done: its data is sent (and
        // comes, even if still in transit), ours was taken, so this exchange completes
        return;
    }
    notices_.setRaised(true); // the Error below is settled here, and not passed on
    if (notice->inStart != 0) // its start failed: this rank's messages to it may still come
    {
        table_.markFailed(
            exchange,
            std::string("its start at ")
                .append(toString(exchange.where))
                .append(": rank ")
                .append(std::to_string(notice->rank))
                .append(" left it with an Error: ")
                .append(notice->message())
        );
    }
    ExchangeCheck* check = exchange.check.get();
    const std::string other = check_ != nullptr ? check_->otherKeys(exchange) : std::string();
    if (!other.empty()) // check mode names this rank's own mismatch (a peer started another key)
    {
        check_->fail(exchange, "halo check mode found a mismatch:" + other, where);
    }
    // its messages will not come: this rank's receives from it are cancelled (in check mode
    // also those a header shows will not match), the rest complete under the time-out
    std::vector<std::size_t> slots;
    std::vector<int> ranks;
    messagesOf(pool_[exchange.buffer].receiveHalf(), slots, ranks);
    std::vector<char> cancel(ranks.size(), 0);
    const std::string name = exchange.key.name();
    const std::span<const char> others =
        check != nullptr ? check->drainOthers(env_.comm(), name) : std::span<const char> {};
    for (std::size_t i = 0; i < ranks.size(); ++i)
    {
        cancel[i] = ranks[i] == notice->rank || (i < others.size() && others[i] != 0) ? 1 : 0;
    }
    const std::string site = toString(exchange.where);
    settle(exchange, cancel, check == nullptr || check->finishHeaders(name), where);
    throw Error(
        std::string("exchange '")
            .append(name)
            .append(exchange.reverse ? "' (reverse" : "' (")
            .append(exchange.reverse ? ", started at " : "started at ")
            .append(site)
            .append("): rank ")
            .append(std::to_string(notice->rank))
            .append(" left this exchange with an Error, so its messages will not come: ")
            .append(notice->message()),
        where
    );
}

bool CommunicatorState::settle(
    Exchange& exchange,
    std::span<const char> cancel,
    bool headersDone,
    const std::source_location& where
)
{
    DuplexBuffer& buffer = pool_[exchange.buffer];
    const std::string& name = exchange.key.name();
    const bool settled = buffer.receiveHalf().settle(cancel, name) &&
                         buffer.sendHalf().settle({}, name) && headersDone;
    if (settled)
    {
        buffer.finaliseComm(where);
        release(exchange);
    }
    else // memory MPI may still touch (logged): its pool entry stays claimed, never reused
    {
        exchange.buffer = Exchange::npos;
        release(exchange);
    }
    return settled;
}

} // namespace fieldsync::halo
