// SPDX-License-Identifier: MIT
// Check mode of a Communicator's exchanges (doc/reliability.md, "Check mode of the halo
// exchange"). Off: no CheckMode, one predictable branch per step.
#include "checkMode.hpp"

#include "communicatorState.hpp"
#include "noticeBox.hpp"

#include "fieldsync/core/commKey.hpp"
#include "fieldsync/core/error.hpp"
#include "fieldsync/core/settings.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string_view>

namespace fieldsync::halo
{

namespace
{
/**
 * @brief Copies @p head followed by @p tail into @p out, NUL-padded; when longer, "..." and the
 * end (never allocates: it runs at every checked start).
 */
template<std::size_t N>
void putText(char (&out)[N], std::string_view head, std::string_view tail = {})
{
    std::memset(out, 0, N);
    const std::size_t size = head.size() + tail.size();
    std::size_t at { 0 };
    std::size_t skip { 0 }; // characters of head + tail left out at the front
    if (size >= N)
    {
        std::memcpy(out, "...", 3);
        at = 3;
        skip = size - (N - 4);
    }
    for (const std::string_view part : { head, tail })
    {
        const std::size_t drop = std::min(skip, part.size());
        skip -= drop;
        if (part.size() > drop) // an empty part may have no data (memcpy must not see a null)
        {
            std::memcpy(out + at, part.data() + drop, part.size() - drop);
            at += part.size() - drop;
        }
    }
}

/** @brief Copies "file:line" of @p where into @p out as putText does. */
template<std::size_t N>
void putSite(char (&out)[N], const std::source_location& where)
{
    char line[16] {};
    const int length =
        std::snprintf(line, sizeof(line), ":%u", static_cast<unsigned>(where.line()));
    putText(out, where.file_name(), std::string_view(line, static_cast<std::size_t>(length)));
}

} // namespace

void CommunicatorState::setUpCheck(const CommitOptions& options)
{
    const bool on = options.check.value_or(checkMode());
    pattern_.hashCells(options, on);
    check_ = on ? std::make_unique<CheckMode>(*this, notices_.id()) : nullptr;
}

void CheckMode::postSends(
    Exchange& exchange,
    DuplexBuffer& buffer,
    const Fields& fields,
    std::size_t stride,
    const std::source_location& where
)
{
    if (exchange.check == nullptr)
    {
        exchange.check = std::make_unique<ExchangeCheck>();
    }
    ExchangeCheck& check = *exchange.check;
    CheckHeader& mine = check.mine();
    mine.key = exchange.keyBits();
    mine.comm = id_;
    mine.counter = ++check.started();
    const char* type = fields.valueType().name();
    mine.type = fnv1a32(type); // the mangled name: the same on every rank of one build
    mine.cellBytes = stride * fields.valueSize();
    mine.tag = state_.neighbourhood() ? -1 : exchange.tag;
    mine.globalIds = state_.pattern_.globalIds() ? 1 : 0;
    putText(mine.keyName, exchange.key.name(), exchange.reverse ? " (reverse)" : "");
    putSite(mine.site, where);
    putText(mine.typeName, type);
    check.seal(buffer.sendHalf(), state_.pattern_.sendHashes(exchange.reverse));
    buffer.startSends(where);
    check.post(buffer.receiveHalf(), state_.env_.comm(), state_.table_.tags().check(), where);
}

bool CheckMode::test(Exchange& exchange, const std::source_location& where)
{
    ExchangeCheck& check = *exchange.check;
    DuplexBuffer& buffer = state_.pool_[exchange.buffer];
    if (!check.compared)
    {
        if (!check.headersDone(*this, state_.env_.comm(), state_.table_.tags().check(), where))
        {
            return false; // headers first: they are compared before any data wait
        }
        const std::string error = check.compare(
            buffer.receiveHalf(),
            state_.pattern_.receiveHashes(exchange.reverse),
            state_.env_.rank()
        );
        if (!error.empty())
        {
            fail(exchange, "halo check mode found a mismatch:" + error, where);
        }
        check.compared = true;
    }
    if (!buffer.isComplete(where))
    {
        return false;
    }
    if (!check.verified)
    {
        const std::string error = check.verifyReceived(buffer.receiveHalf(), state_.env_.rank());
        if (!error.empty())
        {
            fail(exchange, "halo check mode found a corrupted message:" + error, where);
        }
    }
    return true;
}

void CheckMode::wait(Exchange& exchange, const std::source_location& where)
{
    if (test(exchange, where))
    {
        return;
    }
    DuplexBuffer& buffer = state_.pool_[exchange.buffer];
    const mpi::WaitPolicy policy = state_.policy();
    // each std::function below captures one reference, so it holds it without allocating
    const auto testHere = [this, &exchange, &where]
    {
        return test(exchange, where);
    };
    const auto describe = [this, &exchange, &buffer, &where]
    {
        std::string text = exchange.check->describePending(*this);
        for (CommBufferCore* half : { &buffer.receiveHalf(), &buffer.sendHalf() })
        {
            const std::string more = half->describePending(where);
            text.append(!text.empty() && !more.empty() ? ", " : "").append(more);
        }
        return text;
    };
    const auto listenHere = [this, &exchange, &where]
    {
        state_.listen(exchange, where);
    };
    try
    {
        mpi::waitWithTimeout(
            [&testHere] { return testHere(); },
            [&describe] { return describe(); },
            policy,
            "communication",
            exchange.key.name(),
            where,
            [&listenHere] { listenHere(); }
        );
    }
    catch (const Error&)
    {
        if (state_.notices_.raised()) // a peer left the exchange: settled, raised as such
        {
            throw;
        }
        // a peer that started another key instead: a mismatch, settled and raised as such
        const std::string other = otherKeys(exchange);
        if (!other.empty())
        {
            char limit[32];
            std::snprintf(limit, sizeof(limit), "%g", policy.timeoutSeconds);
            fail(
                exchange,
                std::string("halo check mode found a mismatch at the wait time-out ("
                            "FIELDSYNC_WAIT_TIMEOUT ")
                    .append(limit)
                    .append(" s):")
                    .append(other),
                where
            );
        }
        throw;
    }
}

std::string CheckMode::otherKeys(Exchange& exchange)
{
    ExchangeCheck* check = exchange.check.get();
    return check != nullptr && !check->compared ? check->otherKeys(*this, state_.env_.rank())
                                                : std::string();
}

void CheckMode::checkInPlace(Exchange& exchange, const std::source_location& where)
{
    const std::string error =
        exchange.check->verifyInPlace(state_.pool_[exchange.buffer].sendHalf(), state_.env_.rank());
    if (!error.empty())
    {
        fail(exchange, "halo check mode:" + error, where);
    }
}

void CheckMode::fail(
    Exchange& exchange, const std::string& error, const std::source_location& where
)
{
    ExchangeCheck& check = *exchange.check;
    const std::string& name = exchange.key.name();
    // the peers' messages of other keys are taken (their senders complete), this rank's
    // receives nobody sends are cancelled, every other message completes
    const std::span<const char> cancel = check.drainOthers(state_.env_.comm(), name);
    const bool settled = state_.settle(exchange, cancel, check.finishHeaders(name), where);
    const Error raised(error, where);
    if (!state_.notices_.raised()) // a peer's notice found this mismatch: the peers know already
    {
        state_.notifyPeers(
            exchange, raised.what(), false, settled
        ); // drained: nothing stale is left
    }
    throw raised;
}

void CheckMode::pump(MPI_Comm comm, int tag, const std::source_location& where)
{
    Arrival arrival;
    receiveWaiting(
        comm,
        tag,
        &arrival.header,
        sizeof(CheckHeader),
        [&](int source)
        {
            arrival.source = source;
            if (arrival.header.comm == id_) // else meant for a freed Communicator
            {
                arrived_.push_back(arrival);
            }
        },
        where
    );
}

bool CheckMode::take(int source, std::uint64_t key, CheckHeader& out)
{
    return takeIf(out, [&](const Arrival& a) { return a.source == source && a.header.key == key; });
}

bool CheckMode::takeOther(int source, std::uint64_t key, CheckHeader& out)
{
    return takeIf(out, [&](const Arrival& a) { return a.source == source && a.header.key != key; });
}

bool CheckMode::takeIf(CheckHeader& out, const std::function<bool(const Arrival&)>& match)
{
    const auto it = std::find_if(arrived_.begin(), arrived_.end(), match);
    if (it == arrived_.end())
    {
        return false;
    }
    out = it->header;
    arrived_.erase(it);
    return true;
}

std::string CheckMode::describe(int source) const
{
    std::string text;
    for (const Arrival& a : arrived_)
    {
        if (a.source != source)
        {
            continue;
        }
        text.append(text.empty() ? "" : "; ")
            .append("started key '")
            .append(headerText(a.header.keyName))
            .append("' at ")
            .append(headerText(a.header.site));
    }
    return text;
}

} // namespace fieldsync::halo
