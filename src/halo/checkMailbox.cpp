// SPDX-License-Identifier: MIT
// The check-mode headers a Communicator received and no exchange took yet.
#include "checkMailbox.hpp"

#include "fieldsync/core/error.hpp"

#include <algorithm>

namespace fieldsync::halo
{

void CheckMailbox::pump(MPI_Comm comm, int tag, const std::source_location& where)
{
    for (;;)
    {
        int flag { 0 };
        MPI_Status status;
        FIELDSYNC_MPI_AT(MPI_Iprobe(MPI_ANY_SOURCE, tag, comm, &flag, &status), where);
        if (flag == 0)
        {
            return;
        }
        Arrival arrival { status.MPI_SOURCE, {} };
        FIELDSYNC_MPI_AT(
            MPI_Recv(
                &arrival.header,
                sizeof(CheckHeader),
                MPI_BYTE,
                status.MPI_SOURCE,
                tag,
                comm,
                MPI_STATUS_IGNORE
            ),
            where
        );
        arrived_.push_back(arrival);
    }
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
