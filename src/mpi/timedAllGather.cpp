// SPDX-License-Identifier: MIT
// The timed agreement of check mode: a non-blocking all-gather through the one wait, which names
// the ranks that have not arrived when it times out (collectiveCheck.cpp, setUpAgreement.cpp).
#include "timedAllGather.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/mpi/wait.hpp"

#include <chrono>
#include <memory>
#include <new>
#include <string>
#include <thread>

namespace fieldsync::mpi::detail
{

namespace
{

/**
 * @brief Who reached this agreement, learnt only when a wait times out (free otherwise): each
 * rank that times out sends an arrival notice (its serial) to every other rank, then collects
 * the notices of the others for a short grace period. A rank still waiting that receives a
 * notice of this agreement answers with its own at once (answerNotices), so a rank that came
 * late but within the time-out is heard too. The ranks heard from with the same serial arrived;
 * the others did not. Notices of another serial (an earlier agreement) are dropped.
 */
class Arrivals
{
public:
    explicit Arrivals(const TimedAllGather& how) : how_(how)
    {
        FIELDSYNC_MPI_AT(MPI_Comm_rank(how.comm, &rank_), how.where);
        FIELDSYNC_MPI_AT(MPI_Comm_size(how.comm, &size_), how.where);
        arrived_.assign(static_cast<std::size_t>(size_), false);
        arrived_[static_cast<std::size_t>(rank_)] = true;
    }

    /** The ranks of the communicator. */
    [[nodiscard]] std::size_t size() const { return arrived_.size(); }

    /**
     * While this rank still waits: a notice of this agreement means a peer has timed out and is
     * listening for arrivals, so this rank announces itself at once instead of at its own
     * time-out, which may come after the peer has stopped listening.
     */
    void answerNotices()
    {
        if (!announced_ && receiveNotice())
        {
            announce();
        }
    }

    /** "ranks 2, 3 (of 4) have not arrived", after announcing this rank and listening. */
    std::string missing()
    {
        announce();
        listen();
        std::string ranks;
        std::size_t count { 0 };
        for (std::size_t r = 0; r < arrived_.size(); ++r)
        {
            if (!arrived_[r] && count++ < 16)
            {
                ranks.append(count > 1 ? ", " : "").append(std::to_string(r));
            }
        }
        if (count > 16)
        {
            ranks.append(" and ").append(std::to_string(count - 16)).append(" more");
        }
        std::string text { "every rank of the communicator to agree on this call; " };
        if (count == 0)
        {
            return text.append("every rank has arrived, the agreement itself is slow");
        }
        text.append(count == 1 ? "rank " : "ranks ").append(ranks);
        text.append(" (of ").append(std::to_string(size_)).append(")");
        return text.append(count == 1 ? " has" : " have").append(" not arrived");
    }

private:
    /** Sends the serial to every other rank, once. */
    void announce()
    {
        if (!announced_)
        {
            announced_ = true;
            notifyOthers(how_.comm, how_.arrivalTag, how_.serial);
        }
    }

    /** Receives the notices that come within a grace period (a fifth of a second). */
    void listen()
    {
        const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(200);
        while (std::chrono::steady_clock::now() < until)
        {
            if (!receiveNotice())
            {
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            }
        }
    }

    /** Receives one pending notice: true when it is of this agreement (its sender arrived);
     * false when none is pending (or MPI_Iprobe failed) or it is of another one (dropped). */
    bool receiveNotice()
    {
        int flag { 0 };
        MPI_Status status {};
        if (MPI_Iprobe(MPI_ANY_SOURCE, how_.arrivalTag, how_.comm, &flag, &status) != MPI_SUCCESS ||
            flag == 0)
        {
            return false;
        }
        std::int64_t serial { -1 };
        MPI_Recv(
            &serial,
            1,
            MPI_INT64_T,
            status.MPI_SOURCE,
            how_.arrivalTag,
            how_.comm,
            MPI_STATUS_IGNORE
        );
        if (serial == how_.serial)
        {
            arrived_[static_cast<std::size_t>(status.MPI_SOURCE)] = true;
        }
        return serial == how_.serial;
    }

    const TimedAllGather& how_;
    int rank_ { 0 };
    int size_ { 0 };
    std::vector<bool> arrived_;
    bool announced_ { false };
};

} // namespace

void notifyOthers(MPI_Comm comm, int tag, std::int64_t value) noexcept
{
    int rank { 0 };
    int size { 0 };
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const auto* kept = new (std::nothrow) std::int64_t { value }; // read by MPI after the free
    if (kept == nullptr)
    {
        return;
    }
    for (int r = 0; r < size; ++r)
    {
        MPI_Request request { MPI_REQUEST_NULL };
        if (r != rank && MPI_Isend(kept, 1, MPI_INT64_T, r, tag, comm, &request) == MPI_SUCCESS)
        {
            MPI_Request_free(&request);
        }
    }
}

std::vector<std::int64_t>
timedAllGather(const TimedAllGather& how, std::span<const std::int64_t> mine)
{
    struct InFlight
    {
        std::vector<std::int64_t> mine;           /**< what this rank sends */
        std::vector<std::int64_t> all;            /**< what it receives */
        MPI_Request request { MPI_REQUEST_NULL }; /**< the all-gather */
    };
    Arrivals arrivals(how);
    auto op = std::make_unique<InFlight>();
    op->mine.assign(mine.begin(), mine.end());
    const int count = static_cast<int>(mine.size());
    op->all.resize(mine.size() * arrivals.size());
    FIELDSYNC_MPI_AT(
        MPI_Iallgather(
            op->mine.data(),
            count,
            MPI_INT64_T,
            op->all.data(),
            count,
            MPI_INT64_T,
            how.comm,
            &op->request
        ),
        how.where
    );
    InFlight& state { *op };
    try
    {
        waitWithTimeout(
            [&state, &how, &arrivals]
            {
                int done { 0 };
                FIELDSYNC_MPI_AT(MPI_Test(&state.request, &done, MPI_STATUS_IGNORE), how.where);
                if (done == 0)
                {
                    arrivals.answerNotices();
                }
                return done != 0;
            },
            [&arrivals] { return arrivals.missing(); },
            WaitPolicy::fromEnvironment(),
            how.kind,
            how.name,
            how.where
        );
    }
    catch (...)
    {
        static_cast<void>(op.release()); // MPI still owns the buffers: leak, never free
        throw;
    }
    return std::move(op->all);
}

} // namespace fieldsync::mpi::detail
