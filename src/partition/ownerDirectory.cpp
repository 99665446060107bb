// SPDX-License-Identifier: MIT
#include "fieldsync/partition/ownerDirectory.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/mpi/collectives.hpp"
#include "fieldsync/mpi/answeredExchange.hpp"
#include "fieldsync/mpi/detail/privateComm.hpp"

#include <algorithm>
#include <map>
#include <string>

namespace fieldsync::partition
{

namespace
{
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
    : comm_(mpi::detail::privateComm(comm, where))
{
    int size { 0 };
    FIELDSYNC_MPI_AT(MPI_Comm_size(comm_, &size), where);
    GlobalIndex localMax { -1 };
    for (const GlobalIndex id : ownedIds)
    {
        localMax = std::max(localMax, id);
    }
    mpi::allReduce(localMax, mpi::ReduceOp::Max, comm_, mpi::CallOptions<> {}, where);
    idBound_ = localMax + 1;
    // ceil(N / P) as floor((N - 1) / P) + 1: no overflow for ids within P of 2^63
    blockSize_ = std::max<GlobalIndex>(1, localMax / size + 1);

    // each home answers 1 to a registration that claims a cell already claimed; the answers
    // reach the claimants before the agreement, so every rank learns that one did
    std::string error;
    const mpi::AnsweredExchange registered { mpi::answeredExchange(
        comm_,
        byHome(ownedIds, [this](GlobalIndex id) { return home(id); }),
        1,
        [&](const mpi::SparseMessage& message, std::span<std::int64_t> answer)
        {
            for (const std::int64_t id : message.data)
            {
                const auto [entry, inserted] = entries_.try_emplace(id, message.rank);
                int& owner { entry->second };
                if (!inserted)
                {
                    answer[0] = 1;
                    error = error.empty() ? "OwnerDirectory: cell " + std::to_string(id) +
                                                " is owned by both rank " + std::to_string(owner) +
                                                " and rank " + std::to_string(message.rank)
                                          : error;
                }
                owner = message.rank;
            }
        },
        [](std::span<const std::int64_t> answers)
        {
            const bool claimed { std::find(answers.begin(), answers.end(), 1) != answers.end() };
            return mpi::AgreementBid { claimed ? 1U : 0U, 0, 0 };
        },
        mpi::WaitPolicy::fromEnvironment(),
        "OwnerDirectory register",
        where
    ) };
    if (registered.agreed[0] != 0)
    {
        mpi::raiseIfAnyFailed(comm_, error, where);
    }
}

std::vector<int>
OwnerDirectory::owners(std::span<const GlobalIndex> ids, std::source_location where) const
{
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
    std::vector<mpi::SparseMessage> questions {
        byHome(asked, [this](GlobalIndex id) { return home(id); })
    };
    std::vector<GlobalIndex> order; // the ids in the order of the answers
    order.reserve(asked.size());
    for (const mpi::SparseMessage& question : questions)
    {
        order.insert(order.end(), question.data.begin(), question.data.end());
    }
    const mpi::AnsweredExchange answered { mpi::answeredExchange(
        comm_,
        std::move(questions),
        0,
        [&](const mpi::SparseMessage& question, std::span<std::int64_t> answer)
        {
            for (std::size_t k { 0 }; k < question.data.size(); ++k)
            {
                const auto entry = entries_.find(question.data[k]);
                answer[k] = entry == entries_.end() ? -1 : entry->second;
            }
        },
        [](std::span<const std::int64_t>) { return mpi::AgreementBid {}; },
        mpi::WaitPolicy::fromEnvironment(),
        "OwnerDirectory query",
        where
    ) };
    std::map<GlobalIndex, int> owner;
    for (std::size_t k { 0 }; k < order.size(); ++k)
    {
        owner[order[k]] = static_cast<int>(answered.answers[k]);
    }
    std::vector<int> result(ids.size(), -1);
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
