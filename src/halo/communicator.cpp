// SPDX-License-Identifier: MIT
#include "fieldsync/halo/communicator.hpp"

#include "fieldsync/core/logger.hpp"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <string>

namespace fieldsync
{

namespace
{
constexpr std::uint32_t reverseSalt { 0x9e3779b9U };
}

Communicator::Communicator() = default;

Communicator::Communicator(
    mpi::MPIEnvironment env,
    RankSimplexCommMap sendMap,
    RankSimplexCommMap receiveMap,
    std::source_location where
)
    : env_(env.duplicate()), sendMap_(std::move(sendMap)), receiveMap_(std::move(receiveMap)),
      envPolicy_(mpi::WaitPolicy::fromEnvironment()), tsc_(telemetryClock().tsc),
      secondsPerTick_(telemetryClock().secondsPerTick)
{
    const int size = env_->sizeRank();
    const int me = env_->rank();
    FIELDSYNC_CHECK_AT(
        sendMap_.sizeRank() == size,
        "Communicator: the send map is for " + std::to_string(sendMap_.sizeRank()) +
            " ranks, the communicator has " + std::to_string(size),
        where
    );
    FIELDSYNC_CHECK_AT(
        receiveMap_.sizeRank() == size,
        "Communicator: the receive map is for " + std::to_string(receiveMap_.sizeRank()) +
            " ranks, the communicator has " + std::to_string(size),
        where
    );
    receiveMap_.validateUnique("Communicator: receive map", where);
    FIELDSYNC_CHECK_AT(
        sendMap_.sizeOf(me) == receiveMap_.sizeOf(me),
        "Communicator: rank " + std::to_string(me) + " sends " +
            std::to_string(sendMap_.sizeOf(me)) + " cells to itself but receives " +
            std::to_string(receiveMap_.sizeOf(me)),
        where
    );
    sendRepeats_ = sendMap_.hasRepeatWithinNeighbour();
    for (const RankSimplexCommMap* map : { &sendMap_, &receiveMap_ })
    {
        for (std::size_t k = 0; k < map->neighbourCount(); ++k)
        {
            maxCells_ = std::max(maxCells_, map->offsets()[k + 1] - map->offsets()[k]);
        }
    }
}

Communicator::~Communicator()
{
    for (auto& exchange : exchanges_)
    {
        if (exchange.inFlight)
        {
            logger().error(
                "Communicator destroyed with exchange '{}' (started at {}) still in flight; "
                "its requests are cancelled",
                exchange.key.name(),
                toString(exchange.where)
            );
        }
    }
}

Communicator::Communicator(Communicator&&) noexcept = default;
Communicator& Communicator::operator=(Communicator&&) noexcept = default;

const mpi::MPIEnvironment& Communicator::environment() const
{
    requireEnvironment(std::source_location::current());
    return *env_;
}

void Communicator::requireEnvironment(const std::source_location& where) const
{
    FIELDSYNC_CHECK_AT(
        env_.has_value(),
        "Communicator: used before it was given an environment and maps (default-constructed)",
        where
    );
}

const mpi::WaitPolicy& Communicator::policy() const noexcept
{
    return policy_ ? *policy_ : envPolicy_;
}

std::pair<std::vector<int>, std::vector<std::size_t>>
Communicator::sizesOf(const RankSimplexCommMap& map)
{
    std::vector<int> ranks(map.neighbours().begin(), map.neighbours().end());
    std::vector<std::size_t> counts(ranks.size());
    for (std::size_t k = 0; k < ranks.size(); ++k)
    {
        counts[k] = map.offsets()[k + 1] - map.offsets()[k];
    }
    return { std::move(ranks), std::move(counts) };
}

void Communicator::checkFieldSize(std::size_t cells, const std::source_location& where) const
{
    const LocalIndex largest = std::max(sendMap_.maxIndex(), receiveMap_.maxIndex());
    if (largest >= 0 && static_cast<std::size_t>(largest) >= cells)
    {
        sendMap_.validateFieldSize(cells, "Communicator: send map", where);
        receiveMap_.validateFieldSize(cells, "Communicator: receive map", where);
    }
}

std::string Communicator::describeInFlight() const
{
    std::string text;
    for (const auto& exchange : exchanges_)
    {
        if (exchange.inFlight)
        {
            text += "\n  '" + exchange.key.name() + "'" + (exchange.reverse ? " (reverse)" : "") +
                    " started at " + toString(exchange.where) + ", tag " +
                    std::to_string(exchange.tag);
        }
    }
    return text.empty() ? std::string(" none") : text;
}

detail::Exchange& Communicator::begin(const CommKey& key, bool reverse)
{
    const auto& where = key.where();
    detail::Exchange* found { nullptr };
    // the key started last first (a solver loop restarts the same key): no scan
    detail::Exchange* last = lastExchange_.exchange;
    if (last != nullptr && last->reverse == reverse && last->key == key)
    {
        found = last;
    }
    else
    {
        for (auto& exchange : exchanges_)
        {
            if (exchange.reverse == reverse && exchange.key == key)
            {
                found = &exchange;
                break;
            }
        }
    }
    if (found == nullptr)
    {
        detail::Exchange created;
        created.key = key;
        created.reverse = reverse;
        created.where = where;
        created.tag =
            mpi::tagFromHash(reverse ? key.hash() ^ reverseSalt : key.hash(), env_->comm());
        exchanges_.push_back(std::move(created));
        found = &exchanges_.back();
    }
    lastExchange_.exchange = found;
    FIELDSYNC_CHECK_AT(
        !found->inFlight,
        "Communicator: exchange '" + key.name() + "' is already in flight (started at " +
            toString(found->where) + "); finalise it before starting it again",
        where
    );
    for (const auto& other : exchanges_)
    {
        if (inFlight_ == 0)
        {
            break; // nothing in flight: no tag to collide with
        }
        FIELDSYNC_CHECK_AT(
            !(other.inFlight && other.tag == found->tag),
            "Communicator: exchange '" + key.name() + "' has MPI tag " +
                std::to_string(found->tag) + ", the same as exchange '" + other.key.name() +
                "' in flight (started at " + toString(other.where) +
                "); use another key for one of them",
            where
        );
    }
    return *found;
}

detail::Exchange& Communicator::byKey(const CommKey& key, bool reverse)
{
    requireEnvironment(key.where());
    detail::Exchange* last = lastExchange_.exchange;
    if (last != nullptr && last->inFlight && last->reverse == reverse && last->key == key)
    {
        return *last;
    }
    for (auto& exchange : exchanges_)
    {
        if (exchange.inFlight && exchange.reverse == reverse && exchange.key == key)
        {
            return exchange;
        }
    }
    throw Error(
        std::string("Communicator: no ") + (reverse ? "reverse " : "") + "exchange '" + key.name() +
            "' is in flight. In flight:" + describeInFlight(),
        key.where()
    );
}

detail::Exchange& Communicator::byField(
    const void* data, const std::source_location& where, std::optional<bool> reverse
)
{
    requireEnvironment(where);
    detail::Exchange* found { nullptr };
    for (auto& exchange : exchanges_)
    {
        if (!exchange.inFlight || (reverse && exchange.reverse != *reverse))
        {
            continue;
        }
        bool match { false };
        for (const void* field : exchange.fields)
        {
            match = match || field == data;
        }
        if (!match)
        {
            continue;
        }
        FIELDSYNC_CHECK_AT(
            found == nullptr,
            "Communicator: the field is in flight under two keys, '" +
                (found ? found->key.name() : std::string()) + "' and '" + exchange.key.name() +
                "'; name the key. In flight:" + describeInFlight(),
            where
        );
        found = &exchange;
    }
    FIELDSYNC_CHECK_AT(
        found != nullptr,
        "Communicator: no exchange of this field is in flight (the field is found by its data "
        "pointer; pass the key if the view was reallocated). In flight:" +
            describeInFlight(),
        where
    );
    return *found;
}

bool Communicator::testExchange(detail::Exchange& exchange, const std::source_location& where)
{
    const auto startTime = stamp();
    auto& entry = pool_[exchange.buffer];
    bool done { false };
    try
    {
        done = entry.isComplete(entry.buffer.get(), where);
    }
    catch (const Error&)
    {
        exchange.stats.waitSeconds += secondsBetween(startTime, stamp());
        releaseAfterFailure(exchange, where);
        throw;
    }
    exchange.stats.waitSeconds += secondsBetween(startTime, stamp());
    return done;
}

void Communicator::waitExchange(detail::Exchange& exchange, const std::source_location& where)
{
    const auto startTime = stamp();
    auto& entry = pool_[exchange.buffer];
    try
    {
        entry.waitComplete(entry.buffer.get(), exchange.key.name(), where);
    }
    catch (const Error&)
    {
        exchange.stats.waitSeconds += secondsBetween(startTime, stamp());
        releaseAfterFailure(exchange, where);
        throw;
    }
    exchange.stats.waitSeconds += secondsBetween(startTime, stamp());
}

void Communicator::releaseAfterFailure(
    detail::Exchange& exchange, const std::source_location& where
)
{
    // a message of the wrong size: the exchange is over (its buffer is released once the sends
    // are done); a time-out error leaves it in flight, to be waited for again
    auto& entry = pool_[exchange.buffer];
    if (entry.releaseAfterFailure(entry.buffer.get(), exchange.key.name(), where))
    {
        release(exchange);
    }
}

bool Communicator::isComplete(const CommKey& key)
{
    return testExchange(byKey(key, false), key.where());
}

void Communicator::waitComplete(const CommKey& key)
{
    waitExchange(byKey(key, false), key.where());
}

const ExchangeStats& Communicator::stats(const CommKey& key, bool reverse) const
{
    for (const auto& exchange : exchanges_)
    {
        if (exchange.reverse == reverse && exchange.key == key)
        {
            return exchange.stats;
        }
    }
    std::string known;
    for (const auto& exchange : exchanges_)
    {
        known += (known.empty() ? " '" : ", '") + exchange.key.name() + "'" +
                 (exchange.reverse ? " (reverse)" : "");
    }
    throw Error(
        std::string("Communicator::stats: no ") + (reverse ? "reverse " : "") + "exchange '" +
            key.name() + "' was ever started. Keys:" + (known.empty() ? " none" : known),
        key.where()
    );
}

void Communicator::resetStats() noexcept
{
    for (auto& exchange : exchanges_)
    {
        exchange.stats = ExchangeStats {};
    }
}

void Communicator::release(detail::Exchange& exchange)
{
    if (exchange.buffer != detail::Exchange::npos)
    {
        pool_[exchange.buffer].claimed = false;
    }
    exchange.buffer = detail::Exchange::npos;
    if (exchange.inFlight)
    {
        --inFlight_;
    }
    exchange.inFlight = false;
}

} // namespace fieldsync
