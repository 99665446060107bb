// SPDX-License-Identifier: MIT
// The notices of a rank that left a halo exchange with an Error.
#include "noticeBox.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/core/logger.hpp"

#include <algorithm>
#include <cstring>
#include <string_view>

namespace fieldsync::halo
{

NoticeBox::~NoticeBox()
{
    int finalised { 0 };
    MPI_Finalized(&finalised);
    for (std::unique_ptr<Outgoing>& out : sent_)
    {
        int done { 0 };
        if (finalised == 0 && out->request != MPI_REQUEST_NULL)
        {
            MPI_Test(&out->request, &done, MPI_STATUS_IGNORE);
        }
        if (finalised != 0 || (done == 0 && out->request != MPI_REQUEST_NULL))
        {
            // a notice is small (sent eagerly): one still pending has a peer that never
            // receives it; its bytes are left to MPI (a few hundred bytes, on an error path)
            if (finalised == 0)
            {
                MPI_Request_free(&out->request);
            }
            static_cast<void>(out.release());
        }
    }
}

void NoticeBox::notify(
    const Exchange& exchange,
    std::span<const int> peers,
    const char* error,
    bool inStart,
    bool settled
) noexcept
{
    try
    {
        Notice notice;
        notice.comm = id_;
        notice.key = exchange.keyBits();
        notice.counter = exchange.attempts;
        notice.rank = rank_;
        notice.inStart = inStart ? 1 : 0;
        notice.settled = !inStart && settled ? 1 : 0;
        const std::string_view text(error);
        const std::size_t keep = std::min(text.size(), Notice::textBytes);
        std::memcpy(notice.text, text.data(), keep);
        if (keep < text.size())
        {
            std::memcpy(notice.text + keep - 3, "...", 3);
        }
        notice.length = static_cast<std::int32_t>(keep);
        sentAny_ = true;
        // what MPI finished with is dropped first: the list stays as long as the notices in flight
        while (!sent_.empty())
        {
            int done { 0 };
            MPI_Test(&sent_.front()->request, &done, MPI_STATUS_IGNORE);
            if (done == 0)
            {
                break;
            }
            sent_.pop_front();
        }
        for (const int peer : peers)
        {
            Outgoing& out = *sent_.emplace_back(std::make_unique<Outgoing>());
            out.notice = notice;
            if (MPI_Isend(&out.notice, sizeof(Notice), MPI_BYTE, peer, tag_, comm_, &out.request) !=
                MPI_SUCCESS)
            {
                out.request = MPI_REQUEST_NULL;
                logger().error("could not send the notice of an Error to rank {}", peer);
            }
        }
    }
    catch (...)
    {
        logger().error("could not send the notice of an Error to the peers of an exchange");
    }
}

void receiveWaiting(
    MPI_Comm comm,
    int tag,
    void* into,
    int bytes,
    const std::function<void(int)>& arrived,
    const std::source_location& where
)
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
        FIELDSYNC_MPI_AT(
            MPI_Recv(into, bytes, MPI_BYTE, status.MPI_SOURCE, tag, comm, MPI_STATUS_IGNORE), where
        );
        arrived(status.MPI_SOURCE);
    }
}

std::optional<Notice> NoticeBox::heard(
    const Exchange& exchange, std::span<const int> peers, const std::source_location& where
)
{
    Notice notice;
    // one reference captured, so that the std::function holds it without allocating (a long
    // wait listens once per millisecond)
    struct Pumped
    {
        Notice& notice;
        std::uint64_t id;
        std::vector<Notice>& arrived;
    } pumped { notice, id_, arrived_ };
    receiveWaiting(
        comm_,
        tag_,
        &notice,
        sizeof(Notice),
        [&pumped](int)
        {
            Notice& got = pumped.notice;
            got.length = std::clamp<std::int32_t>(got.length, 0, Notice::textBytes);
            if (got.comm == pumped.id) // else meant for a freed Communicator of the same context
            {
                pumped.arrived.push_back(got);
            }
        },
        where
    );
    const std::uint64_t key = exchange.keyBits();
    const std::uint64_t counter = exchange.attempts;
    std::erase_if(arrived_, [&](const Notice& n) { return n.key == key && n.counter < counter; });
    const auto it = std::find_if(
        arrived_.begin(),
        arrived_.end(),
        [&](const Notice& n)
        {
            return n.key == key && n.counter == counter &&
                   std::find(peers.begin(), peers.end(), n.rank) != peers.end();
        }
    );
    if (it == arrived_.end())
    {
        return std::nullopt;
    }
    const Notice found = *it;
    arrived_.erase(it);
    return found;
}

void NoticeBox::drain(MPI_Comm comm, int tag) noexcept
{
    int finalised { 0 };
    MPI_Finalized(&finalised);
    std::vector<char> scratch;
    while (finalised == 0)
    {
        int flag { 0 };
        MPI_Status status;
        if (MPI_Iprobe(MPI_ANY_SOURCE, tag, comm, &flag, &status) != MPI_SUCCESS ||
            flag == 0) // nothing queued: the status is not set
        {
            return;
        }
        int bytes { 0 };
        MPI_Get_count(&status, MPI_BYTE, &bytes);
        try
        {
            scratch.resize(static_cast<std::size_t>(std::max(bytes, 1)));
        }
        catch (...)
        {
            return;
        }
        if (MPI_Recv(
                scratch.data(),
                bytes,
                MPI_BYTE,
                status.MPI_SOURCE,
                status.MPI_TAG,
                comm,
                MPI_STATUS_IGNORE
            ) != MPI_SUCCESS)
        {
            return;
        }
    }
}

} // namespace fieldsync::halo
