// SPDX-License-Identifier: MIT
#include "fieldsync/partition/sparseExchange.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/core/logger.hpp"
#include "fieldsync/core/settings.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <thread>

namespace fieldsync
{

std::vector<SparseMessage> sparseExchange(
    MPI_Comm comm,
    int tag,
    const std::vector<SparseMessage>& outgoing,
    const std::string& what,
    std::source_location where
)
{
    int self { 0 };
    FIELDSYNC_MPI_AT(MPI_Comm_rank(comm, &self), where);
    std::vector<SparseMessage> incoming;
    std::vector<MPI_Request> requests;
    requests.reserve(outgoing.size());
    for (const SparseMessage& message : outgoing)
    {
        if (message.rank == self)
        {
            incoming.push_back(message);
            continue;
        }
        FIELDSYNC_CHECK_AT(
            message.data.size() * sizeof(std::int64_t) < static_cast<std::size_t>(INT_MAX),
            what + ": message of " + std::to_string(message.data.size()) + " values to rank " +
                std::to_string(message.rank) + " is too large",
            where
        );
        MPI_Request request { MPI_REQUEST_NULL };
        FIELDSYNC_MPI_AT(
            MPI_Issend(
                message.data.data(),
                static_cast<int>(message.data.size() * sizeof(std::int64_t)),
                MPI_BYTE,
                message.rank,
                tag,
                comm,
                &request
            ),
            where
        );
        requests.push_back(request);
    }

    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now();
    double warnAfter { envDouble("FIELDSYNC_WAIT_TIMEOUT", 60.0) };
    bool barrierStarted { false };
    MPI_Request barrier { MPI_REQUEST_NULL };
    int idle { 0 };
    while (true)
    {
        int arrived { 0 };
        MPI_Status status;
        FIELDSYNC_MPI_AT(MPI_Iprobe(MPI_ANY_SOURCE, tag, comm, &arrived, &status), where);
        if (arrived != 0)
        {
            int bytes { 0 };
            FIELDSYNC_MPI_AT(MPI_Get_count(&status, MPI_BYTE, &bytes), where);
            SparseMessage message;
            message.rank = status.MPI_SOURCE;
            message.data.resize(static_cast<std::size_t>(bytes) / sizeof(std::int64_t));
            FIELDSYNC_MPI_AT(
                MPI_Recv(
                    message.data.data(),
                    bytes,
                    MPI_BYTE,
                    status.MPI_SOURCE,
                    tag,
                    comm,
                    MPI_STATUS_IGNORE
                ),
                where
            );
            incoming.push_back(std::move(message));
            idle = 0;
            continue;
        }
        int done { 0 };
        if (!barrierStarted)
        {
            FIELDSYNC_MPI_AT(
                MPI_Testall(
                    static_cast<int>(requests.size()), requests.data(), &done, MPI_STATUSES_IGNORE
                ),
                where
            );
            if (done != 0)
            {
                FIELDSYNC_MPI_AT(MPI_Ibarrier(comm, &barrier), where);
                barrierStarted = true;
            }
        }
        else
        {
            FIELDSYNC_MPI_AT(MPI_Test(&barrier, &done, MPI_STATUS_IGNORE), where);
            if (done != 0)
            {
                break;
            }
        }
        if (++idle > 64)
        {
            std::this_thread::yield();
        }
        const double waited { std::chrono::duration<double>(Clock::now() - start).count() };
        if (waited > warnAfter)
        {
            logger().warn(
                "{}: sparse exchange (tag {}) at {} still waiting after {:.0f} s ({}); a rank may "
                "not have entered it",
                what,
                tag,
                toString(where),
                waited,
                barrierStarted ? "own sends matched, waiting for the others"
                               : "own sends not yet received by their targets"
            );
            warnAfter *= 2.0;
        }
    }
    std::sort(
        incoming.begin(),
        incoming.end(),
        [](const SparseMessage& a, const SparseMessage& b) { return a.rank < b.rank; }
    );
    return incoming;
}

void raiseIfAnyFailed(MPI_Comm comm, const std::string& localError, std::source_location where)
{
    int self { 0 };
    FIELDSYNC_MPI_AT(MPI_Comm_rank(comm, &self), where);
    int failing { localError.empty() ? INT_MAX : self };
    FIELDSYNC_MPI_AT(MPI_Allreduce(MPI_IN_PLACE, &failing, 1, MPI_INT, MPI_MIN, comm), where);
    if (!localError.empty())
    {
        throw Error(localError, where);
    }
    if (failing != INT_MAX)
    {
        throw Error(
            "rank " + std::to_string(failing) +
                " of this communicator found bad input (its error "
                "names the cell); this rank stops too",
            where
        );
    }
}

} // namespace fieldsync
