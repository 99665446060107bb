// SPDX-License-Identifier: MIT
// The point-to-point exchange back end: persistent or reissued MPI_Isend/MPI_Irecv.
#include "backEnds.hpp"
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

class PointToPoint;

/**
 * @brief The requests of the two directions of one buffer in one array, the receives' first,
 * with a status per request, so that one MPI_Testall completes both (testTogether). A direction
 * made alone (makePointToPoint) has an array of its own.
 */
struct RequestArray
{
    std::vector<MPI_Request> requests; /**< the receives' requests, then the sends' */
    std::vector<MPI_Status> statuses;  /**< one per request (the receives' byte counts) */
    std::size_t receives { 0 };        /**< requests of the receive direction (the first ones) */
    PointToPoint* sends { nullptr };   /**< a pair's send direction, while it lives */
};

/**
 * @brief The requests of one direction. The usual post repeats the last one (same peers,
 * memory and sizes): persistent requests are restarted, plain ones reissued from the kept
 * arrays; anything else builds the requests anew.
 */
class PointToPoint final : public Transport
{
public:
    PointToPoint(MPI_Comm comm, bool isSend, std::shared_ptr<RequestArray> array)
        : comm_(comm), isSend_(isSend), array_(std::move(array))
    {
    }

    ~PointToPoint() override
    {
        cancel("<destroyed>");
        if (array_->sends == this)
        {
            array_->sends = nullptr; // the receive side tests alone from now on
        }
    }

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
        if (isSend_ && faultHappens(&fieldsync::detail::FaultSettings::delay))
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
        const std::span<MPI_Request> mine = requests();
        if (mine.empty())
        {
            return true;
        }
        // only a receive's status is read (its byte count); a send's would be written for nothing
        return testAll(
            mine, isSend_ ? MPI_STATUSES_IGNORE : array_->statuses.data(), false, name, where
        );
    }

    std::optional<bool> testTogether(
        Transport& sends, std::string_view name, const std::source_location& where
    ) override
    {
        RequestArray& array = *array_;
        if (isSend_ || array.sends != &sends)
        {
            return std::nullopt; // not the two halves of one pair
        }
        return array.requests.empty() ||
               testAll(array.requests, array.statuses.data(), true, name, where);
    }

    std::string describePending(const std::source_location& where) override
    {
        const std::span<MPI_Request> mine = requests();
        std::string text;
        for (std::size_t i = 0; i < mine.size(); ++i)
        {
            int flag { 0 };
            FIELDSYNC_MPI_AT(MPI_Request_get_status(mine[i], &flag, MPI_STATUS_IGNORE), where);
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
        const std::span<MPI_Request> mine = requests();
        for (std::size_t i = 0; i < mine.size(); ++i)
        {
            int flag { 0 };
            if (kept_[i].rank == rank &&
                (MPI_Request_get_status(mine[i], &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS ||
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

    /** @brief Makes @p send the send side of this receive side's array (a pair). */
    void pairWith(PointToPoint& send) noexcept { array_->sends = &send; }

private:
    /** @brief This direction's requests: its part of the array (recomputed after a resize). */
    std::span<MPI_Request> requests() noexcept
    {
        const std::span<MPI_Request> all(array_->requests);
        return isSend_ ? all.subspan(array_->receives) : all.first(array_->receives);
    }

    /**
     * @brief Gives this direction @p count requests, all MPI_REQUEST_NULL, keeping the other
     * direction's (allocates only when the array grows: a new layout, never a repeated post).
     */
    void resizeRequests(std::size_t count)
    {
        RequestArray& array = *array_;
        const std::size_t first = isSend_ ? array.receives : 0;
        const std::size_t mine = isSend_ ? array.requests.size() - array.receives : array.receives;
        const auto at = array.requests.begin() + static_cast<std::ptrdiff_t>(first);
        array.requests.erase(at, at + static_cast<std::ptrdiff_t>(mine));
        array.requests.insert(
            array.requests.begin() + static_cast<std::ptrdiff_t>(first), count, MPI_REQUEST_NULL
        );
        array.receives = isSend_ ? array.receives : count;
        array.statuses.resize(array.requests.size());
    }

    /**
     * @brief One MPI_Testall of @p requests, this direction's or (@p together) a pair's whole
     * array, whose receives come first, with @p statuses; checks the receives' sizes once all
     * are done.
     */
    bool testAll(
        std::span<MPI_Request> requests,
        MPI_Status* statuses,
        bool together,
        std::string_view name,
        const std::source_location& where
    )
    {
        if (faultHappens(&fieldsync::detail::FaultSettings::early))
        {
            return false; // fault injection: MPI not asked this time
        }
        int flag { 0 };
        const int code =
            MPI_Testall(static_cast<int>(requests.size()), requests.data(), &flag, statuses);
        if (code != MPI_SUCCESS)
        {
            int errorClass { code };
            MPI_Error_class(code, &errorClass);
            if (errorClass == MPI_ERR_IN_STATUS)
            {
                failStatuses(name, code, together, where);
            }
            fieldsync::detail::checkMpi(code, "MPI_Testall", where);
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

    bool anyLive() noexcept
    {
        const std::span<MPI_Request> mine = requests();
        return std::any_of(
            mine.begin(), mine.end(), [](MPI_Request r) { return r != MPI_REQUEST_NULL; }
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
        const std::span<MPI_Request> mine = requests();
        if (!mine.empty())
        {
            FIELDSYNC_MPI_AT(MPI_Startall(static_cast<int>(mine.size()), mine.data()), where);
        }
    }

    void reissue(int tag, const std::source_location& where)
    {
        const std::span<MPI_Request> mine = requests();
        for (std::size_t i = 0; i < kept_.size(); ++i)
        {
            start(kept_[i], tag, false, mine[i], where);
        }
        tag_ = tag;
    }

    void create( // a new layout
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
        resizeRequests(messages.size());
        const std::span<MPI_Request> mine = requests();
        for (std::size_t i = 0; i < kept_.size(); ++i)
        {
            start(kept_[i], tag, persistent, mine[i], where);
        }
        tag_ = tag;
        persistent_ = persistent;
        if (persistent)
        {
            restart(where);
        }
    }

    void checkReceivedCounts(std::string_view name, const std::source_location& where) const
    {
        const MPI_Status* statuses = array_->statuses.data(); // the receives' come first
        for (std::size_t i = 0; i < kept_.size(); ++i)
        {
            int count { 0 };
            FIELDSYNC_MPI_AT(MPI_Get_count(&statuses[i], MPI_BYTE, &count), where);
            if (count != kept_[i].bytes)
            {
                failCount(kept_[i], count, name, where);
            }
        }
    }

    /** @brief The Error of a receive of @p count bytes where @p m expected another size. */
    [[noreturn]] static void
    failCount(const Message& m, int count, std::string_view name, const std::source_location& where)
    {
        throw Error(
            "communication buffer '" + std::string(name) + "': receive from rank " +
                std::to_string(m.rank) + ": expected " + std::to_string(m.bytes) +
                " bytes, received " + std::to_string(count) + " bytes" +
                (count > m.bytes ? " (truncated)" : "") + mapsHint,
            where
        );
    }

    /**
     * @brief The Error of an MPI_Testall that returned MPI_ERR_IN_STATUS, of this direction or
     * (@p together) of the pair's whole array: names each failed receive (and, tested
     * together, each failed send), and drops the failed directions' requests so that the next
     * post builds fresh ones.
     */
    [[noreturn]] void
    failStatuses(std::string_view name, int code, bool together, const std::source_location& where);

    MPI_Comm comm_;                       /**< communicator of the messages */
    bool isSend_;                         /**< sends or receives */
    std::shared_ptr<RequestArray> array_; /**< the requests (shared by a pair's directions) */
    std::vector<Message> kept_;           /**< the messages of the last post */
    int tag_ { -1 };                      /**< tag of the requests */
    bool persistent_ { false };           /**< the requests are persistent handles */
};

void PointToPoint::failStatuses(
    std::string_view name, int code, bool together, const std::source_location& where
)
{
    const RequestArray& array = *array_;
    std::string text;
    int firstCode { code };
    bool sendFailed { isSend_ }; // a send alone writes no statuses
    const std::size_t tested = isSend_ ? 0 : together ? array.requests.size() : array.receives;
    for (std::size_t i = 0; i < tested; ++i)
    {
        const int error = array.statuses[i].MPI_ERROR;
        if (error == MPI_SUCCESS || error == MPI_ERR_PENDING)
        {
            continue;
        }
        const bool isReceive = i < array.receives;
        const Message& m = isReceive ? kept_[i] : array.sends->kept_[i - array.receives];
        sendFailed = sendFailed || !isReceive;
        int errorClass { error };
        MPI_Error_class(error, &errorClass);
        firstCode = text.empty() ? error : firstCode;
        text += std::string(text.empty() ? "" : "; ") +
                (isReceive ? "receive from rank " : "send to rank ") + std::to_string(m.rank) +
                (isReceive && errorClass == MPI_ERR_TRUNCATE
                     ? ": expected " + std::to_string(m.bytes) +
                           " bytes, received a longer message (truncated)" + mapsHint
                     : std::string(" failed"));
    }
    if (text.empty())
    {
        text = std::string(isSend_ ? "send" : "receive") + " failed";
    }
    // the failed requests completed; drop them all so the next post builds fresh ones
    cancel(name);
    if (together && sendFailed)
    {
        array_->sends->cancel(name);
    }
    throw Error("communication buffer '" + std::string(name) + "': " + text, where, firstCode);
}

bool PointToPoint::drop(std::span<const char> cancel, bool all, std::string_view name) noexcept
{
    int finalised { 0 };
    MPI_Finalized(&finalised);
    bool safe { true };
    const std::span<MPI_Request> mine = requests();
    for (std::size_t i = 0; i < mine.size(); ++i)
    {
        MPI_Request& request = mine[i];
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
    resizeRequests(0); // shrinks: no allocation
    kept_.clear();
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
    return std::make_unique<PointToPoint>(comm, isSend, std::make_shared<RequestArray>());
}

std::pair<std::unique_ptr<Transport>, std::unique_ptr<Transport>> makePointToPointPair(MPI_Comm comm
)
{
    auto array = std::make_shared<RequestArray>();
    auto send = std::make_unique<PointToPoint>(comm, true, array);
    auto receive = std::make_unique<PointToPoint>(comm, false, array);
    receive->pairWith(*send);
    return { std::move(send), std::move(receive) };
}

// No set-up state: every pool buffer makes its pair at its first start, on the Communicator's
// private duplicate with the exchange's tag (DuplexBuffer::startReceives).
extern constinit const BackEndEntry pointToPointBackEnd {
    BackEnd::PointToPoint,
    "PointToPoint",
    "p2p",
    "MPI_Isend and MPI_Irecv",
    false,
    []() noexcept { return true; },
    [](const Pattern&,
       const mpi::MPIEnvironment&,
       const std::source_location&) -> std::unique_ptr<BackEndSetUp>
    {
        return nullptr;
    }
};

} // namespace fieldsync::halo
