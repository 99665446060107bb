// SPDX-License-Identifier: MIT
// The check-mode headers a Communicator received and no exchange took yet.
#include "checkMailbox.hpp"
#include "noticeBox.hpp"

#include "fieldsync/core/error.hpp"

#include <algorithm>

namespace fieldsync::halo
{

void CheckMailbox::pump(MPI_Comm comm, int tag, const std::source_location& where)
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

bool CheckMailbox::take(int source, std::uint64_t key, CheckHeader& out)
{
    return takeIf(out, [&](const Arrival& a) { return a.source == source && a.header.key == key; });
}

bool CheckMailbox::takeOther(int source, std::uint64_t key, CheckHeader& out)
{
    return takeIf(out, [&](const Arrival& a) { return a.source == source && a.header.key != key; });
}

bool CheckMailbox::takeIf(CheckHeader& out, const std::function<bool(const Arrival&)>& match)
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

std::string CheckMailbox::describe(int source) const
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
