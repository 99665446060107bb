// SPDX-License-Identifier: MIT
// A Communicator's keys, their tags, which are in flight and which failed.
#include "exchangeTable.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/core/liveObjects.hpp"
#include "fieldsync/core/logger.hpp"
#include "fieldsync/core/settings.hpp"

#include <algorithm>

namespace fieldsync::halo
{

Exchange& ExchangeTable::begin(const CommKey& key, bool reverse)
{
    const auto& where = key.where();
    Exchange* found { nullptr };
    // the key begun last first (a solver loop restarts the same key): no scan
    if (last_ != nullptr && last_->reverse == reverse && last_->key == key)
    {
        found = last_;
    }
    for (auto it = exchanges_.begin(); found == nullptr && it != exchanges_.end(); ++it)
    {
        found = it->reverse == reverse && it->key == key ? &*it : nullptr;
    }
    if (found == nullptr)
    {
        Exchange& created = exchanges_.emplace_back();
        created.key = key;
        created.reverse = reverse;
        created.where = where;
        created.tag = tagOf(key, reverse);
        found = &created;
    }
    last_ = found;
    FIELDSYNC_CHECK_AT(
        !found->inFlight,
        "Communicator: exchange '" + key.name() + "' is already in flight (started at " +
            toString(found->where) + "); finalise it before starting it again",
        where
    );
    ++found->attempts; // from here an Error leaves this start: the peers hear of it
    found->polls = 0;
    if (!failures_.empty())
    {
        refuseFailed(*found, where);
    }
    for (auto it = exchanges_.begin(); inFlight_ > 0 && it != exchanges_.end(); ++it)
    {
        FIELDSYNC_CHECK_AT(
            !(it->inFlight && it->tag == found->tag),
            "Communicator: exchange '" + key.name() + "' has MPI tag " +
                std::to_string(found->tag) + ", the same as exchange '" + it->key.name() +
                "' in flight (started at " + toString(it->where) +
                "); use another key for one of them",
            where
        );
    }
    return *found;
}

Exchange& ExchangeTable::searchKey(const CommKey& key, bool reverse)
{
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

Exchange& ExchangeTable::byField(
    const void* data, const std::source_location& where, std::optional<bool> reverse
)
{
    Exchange* found { nullptr };
    for (auto& exchange : exchanges_)
    {
        if (!exchange.inFlight || (reverse && exchange.reverse != *reverse) ||
            std::none_of(
                exchange.fields.begin(),
                exchange.fields.end(),
                [data](const FieldShape& f) { return f.data == data; }
            ))
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

std::string ExchangeTable::describeInFlight() const
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

void ExchangeTable::reportInFlight() const noexcept
{
    for (const auto& exchange : exchanges_)
    {
        if (!exchange.inFlight)
        {
            continue;
        }
        logger().error(
            "Communicator destroyed with exchange '{}' (started at {}) still in flight; its "
            "messages are cancelled and completed before its buffers are freed",
            exchange.key.name(),
            toString(exchange.where)
        );
        if (checkMode()) // a destructor cannot throw: the next collective raises it
        {
            deferError(std::string("Communicator destroyed with exchange '")
                           .append(exchange.key.name())
                           .append("' (started at ")
                           .append(toString(exchange.where))
                           .append(") still in flight"));
        }
    }
}

void ExchangeTable::markFailed(const Exchange& exchange, std::string_view error) noexcept
{
    const bool spent = std::any_of(
        failures_.begin(), failures_.end(), [&](const Failure& f) { return f.tag == exchange.tag; }
    );
    try
    {
        if (!spent)
        {
            failures_.push_back(Failure {
                exchange.tag, exchange.reverse, exchange.key.name(), std::string(error) });
        }
    }
    catch (...) // out of memory: the Error in flight matters more
    {
    }
}

void ExchangeTable::refuseFailed(const Exchange& exchange, const std::source_location& where) const
{
    const auto failed = std::find_if(
        failures_.begin(), failures_.end(), [&](const Failure& f) { return f.tag == exchange.tag; }
    );
    if (failed == failures_.end())
    {
        return;
    }
    const std::string name = exchange.key.name();
    std::string text("Communicator: exchange '");
    text.append(name).append(exchange.reverse ? "' (reverse)" : "'").append(" cannot start ");
    if (failed->key == name && failed->reverse == exchange.reverse)
    {
        text.append("again on this Communicator, where an earlier start of it failed");
    }
    else
    {
        text.append("on this Communicator, where a start of exchange '")
            .append(failed->key)
            .append("' (the same MPI tag, ")
            .append(std::to_string(exchange.tag))
            .append(") failed");
    }
    text.append(" (first failure: ")
        .append(failed->error)
        .append("). The peers' messages of that start may still arrive on its MPI tag, where a "
                "new start would take them as its data: construct a new Communicator "
                "(destroying this one drops what is queued for it)");
    throw Error(text, where);
}

} // namespace fieldsync::halo
