// SPDX-License-Identifier: MIT
#include "fieldsync/mpi/sparseExchange.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/mpi/collectives.hpp"
#include "fieldsync/mpi/wait.hpp"

#include <algorithm>
#include <climits>

namespace fieldsync::mpi
{

namespace
{
/** @brief One rank's side of an NBX exchange in progress: its sends, then its barrier. */
class NbxExchange
{
public:
    /** @brief An exchange on @p comm with @p tag, for errors at @p where. */
    NbxExchange(MPI_Comm comm, int tag, const std::source_location& where)
        : comm_(comm), tag_(tag), where_(where)
    {
        FIELDSYNC_MPI_AT(MPI_Comm_rank(comm, &self_), where);
    }

    /** @brief Starts an MPI_Issend per message to another rank; copies messages to itself. */
    void postSends(const std::vector<SparseMessage>& outgoing, const std::string& what)
    {
        sends_.reserve(outgoing.size());
        destinations_.reserve(outgoing.size());
        for (const SparseMessage& message : outgoing)
        {
            if (message.rank == self_)
            {
                incoming_.push_back(message);
                continue;
            }
            FIELDSYNC_CHECK_AT(
                message.data.size() * sizeof(std::int64_t) < static_cast<std::size_t>(INT_MAX),
                what + ": message of " + std::to_string(message.data.size()) + " values to rank " +
                    std::to_string(message.rank) + " is too large",
                where_
            );
            MPI_Request request { MPI_REQUEST_NULL };
            FIELDSYNC_MPI_AT(
                MPI_Issend(
                    message.data.data(),
                    static_cast<int>(message.data.size() * sizeof(std::int64_t)),
                    MPI_BYTE,
                    message.rank,
                    tag_,
                    comm_,
                    &request
                ),
                where_
            );
            sends_.push_back(request);
            destinations_.push_back(message.rank);
        }
    }

    /**
     * @brief One poll: receives every message that has arrived, enters the barrier once the own
     * sends were received, and returns true when the barrier completed (every rank is done).
     */
    bool step()
    {
        while (receiveArrived())
        {
        }
        int done { 0 };
        if (!barrierStarted_)
        {
            FIELDSYNC_MPI_AT(
                MPI_Testall(
                    static_cast<int>(sends_.size()), sends_.data(), &done, MPI_STATUSES_IGNORE
                ),
                where_
            );
            if (done == 0)
            {
                return false;
            }
            FIELDSYNC_MPI_AT(MPI_Ibarrier(comm_, &barrier_), where_);
            barrierStarted_ = true;
        }
        FIELDSYNC_MPI_AT(MPI_Test(&barrier_, &done, MPI_STATUS_IGNORE), where_);
        return done != 0;
    }

    /** @brief What the exchange still waits for, for a time-out report. */
    [[nodiscard]] std::string describe() const
    {
        if (barrierStarted_)
        {
            return "the other ranks to enter its barrier (its own messages were all received); "
                   "a rank may not have entered this exchange";
        }
        std::string ranks;
        for (std::size_t k { 0 }; k < sends_.size(); ++k)
        {
            int complete { 0 };
            MPI_Request_get_status(sends_[k], &complete, MPI_STATUS_IGNORE);
            if (complete == 0)
            {
                ranks.append(ranks.empty() ? "" : ", ").append(std::to_string(destinations_[k]));
            }
        }
        return "its messages to rank(s) " + ranks +
               " to be received; a rank may not have entered this exchange";
    }

    /** @brief The messages received (and sent to oneself), ordered by source rank. */
    std::vector<SparseMessage> takeIncoming()
    {
        std::sort(
            incoming_.begin(),
            incoming_.end(),
            [](const SparseMessage& a, const SparseMessage& b) { return a.rank < b.rank; }
        );
        return std::move(incoming_);
    }

private:
    /** @brief Receives one message with this exchange's tag if one has arrived. */
    bool receiveArrived()
    {
        int arrived { 0 };
        MPI_Status status;
        FIELDSYNC_MPI_AT(MPI_Iprobe(MPI_ANY_SOURCE, tag_, comm_, &arrived, &status), where_);
        if (arrived == 0)
        {
            return false;
        }
        int bytes { 0 };
        FIELDSYNC_MPI_AT(MPI_Get_count(&status, MPI_BYTE, &bytes), where_);
        SparseMessage message;
        message.rank = status.MPI_SOURCE;
        message.data.resize(static_cast<std::size_t>(bytes) / sizeof(std::int64_t));
        FIELDSYNC_MPI_AT(
            MPI_Recv(
                message.data.data(),
                bytes,
                MPI_BYTE,
                status.MPI_SOURCE,
                tag_,
                comm_,
                MPI_STATUS_IGNORE
            ),
            where_
        );
        incoming_.push_back(std::move(message));
        return true;
    }

    MPI_Comm comm_;                            /**< the communicator of the exchange */
    int tag_;                                  /**< its tag */
    std::source_location where_;               /**< the caller's call site, for errors */
    int self_ { 0 };                           /**< this rank in comm_ */
    std::vector<MPI_Request> sends_;           /**< the MPI_Issend requests */
    std::vector<int> destinations_;            /**< the rank of each send */
    MPI_Request barrier_ { MPI_REQUEST_NULL }; /**< the MPI_Ibarrier, once started */
    bool barrierStarted_ { false };            /**< whether the own sends were all received */
    std::vector<SparseMessage> incoming_;      /**< what arrived */
};
} // namespace

std::vector<SparseMessage> sparseExchange(
    MPI_Comm comm,
    int tag,
    const std::vector<SparseMessage>& outgoing,
    const std::string& what,
    std::source_location where
)
{
    return sparseExchange(comm, tag, outgoing, what, WaitPolicy::fromEnvironment(), where);
}

std::vector<SparseMessage> sparseExchange(
    MPI_Comm comm,
    int tag,
    const std::vector<SparseMessage>& outgoing,
    const std::string& what,
    const WaitPolicy& policy,
    std::source_location where
)
{
    NbxExchange exchange(comm, tag, where);
    exchange.postSends(outgoing, what);
    mpi::waitWithTimeout(
        [&exchange] { return exchange.step(); },
        [&exchange] { return exchange.describe(); },
        policy,
        "sparse exchange",
        what + " (tag " + std::to_string(tag) + ")",
        where
    );
    return exchange.takeIncoming();
}

void raiseIfAnyFailed(MPI_Comm comm, const std::string& localError, std::source_location where)
{
    int self { 0 };
    FIELDSYNC_MPI_AT(MPI_Comm_rank(comm, &self), where);
    int failing { localError.empty() ? INT_MAX : self };
    mpi::allReduce(failing, mpi::ReduceOp::Min, comm, mpi::CallOptions<> {}, where);
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

} // namespace fieldsync::mpi
