// SPDX-License-Identifier: MIT
// The point-to-point exchange back end: persistent or reissued MPI_Isend/MPI_Irecv.
#include "transport.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/core/faults.hpp"
#include "fieldsync/core/logger.hpp"
#include "fieldsync/mpi/wait.hpp"

#include <algorithm>
#include <vector>

namespace fieldsync::halo
{

namespace
{
constexpr const char* mapsHint =
    " (the send and receive maps disagree: the peer's send map and this rank's receive map list "
    "a different number of cells for this pair of ranks)";

/**
 * @brief The requests of one direction. The usual post repeats the last one (same peers,
 * memory and sizes): persistent requests are restarted, plain ones reissued from the kept
 * arrays; anything else builds the requests anew.
 */
class PointToPoint final : public Transport
{
public:
    PointToPoint(MPI_Comm comm, bool isSend) : comm_(comm), isSend_(isSend) {}

    ~PointToPoint() override { cancel("<destroyed>"); }

    PointToPoint(const PointToPoint&) = delete;
    PointToPoint& operator=(const PointToPoint&) = delete;
    PointToPoint(PointToPoint&&) = delete;
    PointToPoint& operator=(PointToPoint&&) = delete;

    void post(
        std::span<const Message> messages,
        int tag,
        bool persistent,
        bool unchanged,
        const std::source_location& where
    ) override
    {
        if (isSend_ && faultHappens(&FaultSettings::delay))
        {
            faultDelay(); // fault injection: a late sender
        }
        // kept_ is the caller's last post unless a cancel emptied it
        const bool same =
            messages.size() == kept_.size() && (unchanged || repeatsLastPost(messages));
        if (same && persistent && persistent_ && tag == tag_)
        {
            restart(where);
        }
        else if (same && !persistent && !persistent_ && !anyLive())
        {
            reissue(tag, where);
        }
        else
        {
            create(messages, tag, persistent, where);
        }
    }

    bool test(std::string_view name, const std::source_location& where) override
    {
        if (requests_.empty())
        {
            return true;
        }
        if (faultHappens(&FaultSettings::early))
        {
            return false; // fault injection: MPI not asked this time
        }
        int flag { 0 };
        // only a receive's status is read (its byte count); a send's would be written for nothing
        const int code = MPI_Testall(
            static_cast<int>(requests_.size()),
            requests_.data(),
            &flag,
            isSend_ ? MPI_STATUSES_IGNORE : statuses_.data()
        );
        if (code != MPI_SUCCESS) [[unlikely]]
        {
            int errorClass { code };
            MPI_Error_class(code, &errorClass);
            if (errorClass == MPI_ERR_IN_STATUS)
            {
                failStatuses(name, code, where);
            }
            detail::checkMpi(code, "MPI_Testall", where);
        }
        if (flag == 0)
        {
            return false;
        }
        if (!isSend_)
        {
            checkReceivedCounts(name, where);
        }
        return true;
    }

    std::string describePending(const std::source_location& where) override
    {
        std::string text;
        for (std::size_t i = 0; i < requests_.size(); ++i)
        {
            int flag { 0 };
            FIELDSYNC_MPI_AT(MPI_Request_get_status(requests_[i], &flag, MPI_STATUS_IGNORE), where);
            if (flag != 0)
            {
                continue;
            }
            text += std::string(text.empty() ? "" : ", ") +
                    (isSend_ ? "send to rank " : "receive from rank ") +
                    std::to_string(kept_[i].rank) + " (" + std::to_string(kept_[i].bytes) + " B)";
        }
        return text;
    }

    bool awaits(int rank) noexcept override
    {
        for (std::size_t i = 0; i < requests_.size(); ++i)
        {
            int flag { 0 };
            if (kept_[i].rank == rank &&
                (MPI_Request_get_status(requests_[i], &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS ||
                 flag == 0))
            {
                return true;
            }
        }
        return false;
    }

    bool cancel(std::string_view name) noexcept override { return drop({}, true, name); }

    bool settle(std::span<const char> cancel, std::string_view name) noexcept override
    {
        return drop(cancel, false, name);
    }

    /**
     * @brief Completes the pending requests and drops them all: a receive is cancelled when
     * @p all or its entry of @p cancel is set (logged when @p all: memory is about to be freed).
     */
    bool drop(std::span<const char> cancel, bool all, std::string_view name) noexcept;

    /**
     * @brief Completes one pending request under the time-out, cancelling it first when
     * @p cancelIt (a receive); false when it could not.
     */
    bool complete(MPI_Request& request, bool cancelIt, std::string_view name) noexcept;

private:
    bool repeatsLastPost(std::span<const Message> messages) const noexcept
    {
        if (messages.size() != kept_.size())
        {
            return false;
        }
        for (std::size_t i = 0; i < messages.size(); ++i)
        {
            if (messages[i].rank != kept_[i].rank || messages[i].data != kept_[i].data ||
                messages[i].bytes != kept_[i].bytes)
            {
                return false;
            }
        }
        return true;
    }

    bool anyLive() const noexcept
    {
        return std::any_of(
            requests_.begin(), requests_.end(), [](MPI_Request r) { return r != MPI_REQUEST_NULL; }
        );
    }

    /** @brief Starts one message: persistent set-up or a plain Isend/Irecv. */
    void start(
        const Message& m,
        int tag,
        bool persistent,
        MPI_Request& request,
        const std::source_location& where
    ) const
    {
        if (persistent)
        {
            FIELDSYNC_MPI_AT(
                isSend_ ? MPI_Send_init(m.data, m.bytes, MPI_BYTE, m.rank, tag, comm_, &request)
                        : MPI_Recv_init(m.data, m.bytes, MPI_BYTE, m.rank, tag, comm_, &request),
                where
            );
        }
        else
        {
            FIELDSYNC_MPI_AT(
                isSend_ ? MPI_Isend(m.data, m.bytes, MPI_BYTE, m.rank, tag, comm_, &request)
                        : MPI_Irecv(m.data, m.bytes, MPI_BYTE, m.rank, tag, comm_, &request),
                where
            );
        }
    }

    void restart(const std::source_location& where)
    {
        if (!requests_.empty())
        {
            FIELDSYNC_MPI_AT(
                MPI_Startall(static_cast<int>(requests_.size()), requests_.data()), where
            );
        }
    }

    void reissue(int tag, const std::source_location& where)
    {
        for (std::size_t i = 0; i < kept_.size(); ++i)
        {
            start(kept_[i], tag, false, requests_[i], where);
        }
        tag_ = tag;
    }

    void create(
        std::span<const Message> messages,
        int tag,
        bool persistent,
        const std::source_location& where
    )
    {
        if (anyLive())
        {
            cancel("<reposted>");
        }
        kept_.assign(messages.begin(), messages.end());
        requests_.assign(messages.size(), MPI_REQUEST_NULL);
        statuses_.resize(messages.size());
        for (std::size_t i = 0; i < kept_.size(); ++i)
        {
            start(kept_[i], tag, persistent, requests_[i], where);
        }
        tag_ = tag;
        persistent_ = persistent;
        if (persistent)
        {
            restart(where);
        }
    }

    void checkReceivedCounts(std::string_view name, const std::source_location& where)
    {
        for (std::size_t i = 0; i < statuses_.size(); ++i)
        {
            int count { 0 };
            FIELDSYNC_MPI_AT(MPI_Get_count(&statuses_[i], MPI_BYTE, &count), where);
            if (count != kept_[i].bytes) [[unlikely]]
            {
                throw Error(
                    "communication buffer '" + std::string(name) + "': receive from rank " +
                        std::to_string(kept_[i].rank) + ": expected " +
                        std::to_string(kept_[i].bytes) + " bytes, received " +
                        std::to_string(count) + " bytes" +
                        (count > kept_[i].bytes ? " (truncated)" : "") + mapsHint,
                    where
                );
            }
        }
    }

    [[noreturn]] void
    failStatuses(std::string_view name, int code, const std::source_location& where)
    {
        std::string text;
        int firstCode { code };
        for (std::size_t i = 0; !isSend_ && i < statuses_.size(); ++i)
        {
            const int error = statuses_[i].MPI_ERROR;
            if (error == MPI_SUCCESS || error == MPI_ERR_PENDING)
            {
                continue;
            }
            int errorClass { error };
            MPI_Error_class(error, &errorClass);
            firstCode = text.empty() ? error : firstCode;
            text += std::string(text.empty() ? "" : "; ") +
                    (isSend_ ? "send to rank " : "receive from rank ") +
                    std::to_string(kept_[i].rank) +
                    (errorClass == MPI_ERR_TRUNCATE
                         ? ": expected " + std::to_string(kept_[i].bytes) +
                               " bytes, received a longer message (truncated)" + mapsHint
                         : std::string(" failed"));
        }
        if (text.empty())
        {
            text = std::string(isSend_ ? "send" : "receive") + " failed";
        }
        // the failed requests completed; drop them all so the next post builds fresh ones
        cancel(name);
        throw Error("communication buffer '" + std::string(name) + "': " + text, where, firstCode);
    }

    MPI_Comm comm_;                     /**< communicator of the messages */
    bool isSend_;                       /**< sends or receives */
    std::vector<Message> kept_;         /**< the messages of the last post */
    std::vector<MPI_Request> requests_; /**< one per kept message */
    std::vector<MPI_Status> statuses_;  /**< receives: statuses of the last MPI_Testall */
    int tag_ { -1 };                    /**< tag of the requests */
    bool persistent_ { false };         /**< requests_ are persistent handles */
};

bool PointToPoint::drop(std::span<const char> cancel, bool all, std::string_view name) noexcept
{
    int finalised { 0 };
    MPI_Finalized(&finalised);
    bool safe { true };
    for (std::size_t i = 0; i < requests_.size(); ++i)
    {
        MPI_Request& request = requests_[i];
        if (request == MPI_REQUEST_NULL || finalised)
        {
            continue;
        }
        int flag { 0 };
        MPI_Test(&request, &flag, MPI_STATUS_IGNORE);
        if (flag == 0)
        {
            if (all)
            {
                // A pending send is waited for (its peer gets the data); a pending receive is
                // cancelled and waited for, so MPI never touches memory after it is freed.
                logger().error(
                    "communication buffer '{}': a {} still in flight is {} before its memory is "
                    "freed",
                    name,
                    isSend_ ? "send" : "receive",
                    isSend_ ? "completed" : "cancelled"
                );
            }
            const bool cancelIt = !isSend_ && (all || (i < cancel.size() && cancel[i] != 0));
            safe = complete(request, cancelIt, name) && safe;
        }
        if (request != MPI_REQUEST_NULL && flag != 0)
        {
            MPI_Request_free(&request); // an inactive persistent request
        }
    }
    requests_.clear();
    kept_.clear();
    statuses_.clear();
    persistent_ = false;
    return safe;
}

bool PointToPoint::complete(MPI_Request& request, bool cancelIt, std::string_view name) noexcept
{
    if (cancelIt)
    {
        MPI_Cancel(&request);
    }
    const auto done = [&request]
    {
        int flag { 0 };
        MPI_Test(&request, &flag, MPI_STATUS_IGNORE); // an error (truncation) completes it too
        return flag != 0;
    };
    if (!completeDropped(
            done,
            isSend_    ? "a send"
            : cancelIt ? "a cancelled receive"
                       : "a receive",
            name
        ))
    {
        return false;
    }
    if (request != MPI_REQUEST_NULL)
    {
        MPI_Request_free(&request); // a persistent request, now inactive
    }
    return true;
}

} // namespace

std::unique_ptr<Transport> makePointToPoint(MPI_Comm comm, bool isSend)
{
    return std::make_unique<PointToPoint>(comm, isSend);
}

} // namespace fieldsync::halo
