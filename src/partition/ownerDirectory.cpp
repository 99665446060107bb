// SPDX-License-Identifier: MIT
#include "fieldsync/partition/ownerDirectory.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/mpi/collectives.hpp"
#include "fieldsync/mpi/sparseExchange.hpp"

#include <algorithm>
#include <map>
#include <string>

namespace fieldsync::partition
{

namespace
{
constexpr int registerTag { 7001 };
constexpr int queryTag { 7002 };
constexpr int replyTag { 7003 };

/** @brief Groups @p ids by home rank: one message per home, ids in input order. */
template<typename HomeFn>
std::vector<mpi::SparseMessage> byHome(std::span<const GlobalIndex> ids, HomeFn homeOf)
{
    std::map<int, std::vector<std::int64_t>> grouped;
    for (const GlobalIndex id : ids)
    {
        grouped[homeOf(id)].push_back(id);
    }
    std::vector<mpi::SparseMessage> out;
    out.reserve(grouped.size());
    for (auto& [rank, data] : grouped)
    {
        out.push_back(mpi::SparseMessage { rank, std::move(data) });
    }
    return out;
}
} // namespace

OwnerDirectory::OwnerDirectory(
    MPI_Comm comm, std::span<const GlobalIndex> ownedIds, std::source_location where
)
    : comm_(comm)
{
    int size { 0 };
    FIELDSYNC_MPI_AT(MPI_Comm_rank(comm_, &rank_), where);
    FIELDSYNC_MPI_AT(MPI_Comm_size(comm_, &size), where);
    GlobalIndex localMax { -1 };
    for (const GlobalIndex id : ownedIds)
    {
        localMax = std::max(localMax, id);
    }
    mpi::allReduce(localMax, mpi::ReduceOp::Max, comm_, mpi::CallOptions<> {}, where);
    idBound_ = localMax + 1;
    blockSize_ = std::max<GlobalIndex>(1, (idBound_ + size - 1) / size);
    const GlobalIndex first { static_cast<GlobalIndex>(rank_) * blockSize_ };
    const GlobalIndex count { std::clamp<GlobalIndex>(idBound_ - first, 0, blockSize_) };
    entries_.assign(static_cast<std::size_t>(count), -1);

    const auto incoming = mpi::sparseExchange(
        comm_,
        registerTag,
        byHome(ownedIds, [this](GlobalIndex id) { return home(id); }),
        "OwnerDirectory register",
        where
    );
    std::string error;
    for (const mpi::SparseMessage& message : incoming)
    {
        for (const std::int64_t id : message.data)
        {
            int& owner = entries_[static_cast<std::size_t>(id - first)];
            if (owner != -1 && error.empty())
            {
                error = "OwnerDirectory: cell " + std::to_string(id) + " is owned by both rank " +
                        std::to_string(owner) + " and rank " + std::to_string(message.rank);
            }
            owner = message.rank;
        }
    }
    mpi::raiseIfAnyFailed(comm_, error, where);
}

std::vector<int>
OwnerDirectory::owners(std::span<const GlobalIndex> ids, std::source_location where) const
{
    std::vector<int> result(ids.size(), -1);
    // ids outside [0, N) have no owner and need no question
    std::vector<GlobalIndex> asked;
    asked.reserve(ids.size());
    for (const GlobalIndex id : ids)
    {
        if (id >= 0 && id < idBound_)
        {
            asked.push_back(id);
        }
    }
    const auto questions = byHome(asked, [this](GlobalIndex id) { return home(id); });
    const auto incoming =
        mpi::sparseExchange(comm_, queryTag, questions, "OwnerDirectory query", where);

    const GlobalIndex first { static_cast<GlobalIndex>(rank_) * blockSize_ };
    std::vector<std::vector<std::int64_t>> answers(incoming.size());
    std::vector<MPI_Request> requests;
    for (std::size_t m { 0 }; m < incoming.size(); ++m)
    {
        answers[m].reserve(incoming[m].data.size());
        for (const std::int64_t id : incoming[m].data)
        {
            answers[m].push_back(entries_[static_cast<std::size_t>(id - first)]);
        }
        if (incoming[m].rank == rank_)
        {
            continue;
        }
        MPI_Request request { MPI_REQUEST_NULL };
        FIELDSYNC_MPI_AT(
            MPI_Isend(
                answers[m].data(),
                static_cast<int>(answers[m].size()),
                MPI_INT64_T,
                incoming[m].rank,
                replyTag,
                comm_,
                &request
            ),
            where
        );
        requests.push_back(request);
    }
    // the answers to my questions, one message per home rank asked, in question order
    std::map<GlobalIndex, int> owner;
    for (const mpi::SparseMessage& question : questions)
    {
        std::vector<std::int64_t> reply(question.data.size());
        if (question.rank == rank_)
        {
            for (std::size_t m { 0 }; m < incoming.size(); ++m)
            {
                if (incoming[m].rank == rank_)
                {
                    reply = answers[m];
                }
            }
        }
        else
        {
            FIELDSYNC_MPI_AT(
                MPI_Recv(
                    reply.data(),
                    static_cast<int>(reply.size()),
                    MPI_INT64_T,
                    question.rank,
                    replyTag,
                    comm_,
                    MPI_STATUS_IGNORE
                ),
                where
            );
        }
        for (std::size_t k { 0 }; k < question.data.size(); ++k)
        {
            owner[question.data[k]] = static_cast<int>(reply[k]);
        }
    }
    FIELDSYNC_MPI_AT(
        MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE), where
    );
    for (std::size_t k { 0 }; k < ids.size(); ++k)
    {
        const auto it = owner.find(ids[k]);
        if (it != owner.end())
        {
            result[k] = it->second;
        }
    }
    return result;
}

} // namespace fieldsync::partition
