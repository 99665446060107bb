// SPDX-License-Identifier: MIT
#include "fieldsync/partition/migration.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/mpi/detail/privateComm.hpp"
#include "fieldsync/mpi/setUpAgreement.hpp"
#include "fieldsync/mpi/sparseExchange.hpp"
#include "fieldsync/mpi/wait.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <map>
#include <new>
#include <numeric>

namespace fieldsync::partition
{

namespace
{

/** @brief The first bad entry of @p newOwners for @p owned, or "" when all are good. */
std::string badOwners(const CellGraph& owned, std::span<const int> newOwners, int nRanks)
{
    if (newOwners.size() != owned.nCells())
    {
        return "Migration: " + std::to_string(newOwners.size()) + " new owners for " +
               std::to_string(owned.nCells()) + " owned cells";
    }
    for (std::size_t i { 0 }; i < newOwners.size(); ++i)
    {
        if (newOwners[i] < 0 || newOwners[i] >= nRanks)
        {
            std::string message { "Migration: cell " };
            message.append(std::to_string(owned.globalId(i)))
                .append(" has new owner ")
                .append(std::to_string(newOwners[i]))
                .append(", outside [0, ")
                .append(std::to_string(nRanks))
                .append(")");
            return message;
        }
    }
    return {};
}

/** @brief One arriving cell: where its row sits in the arrival order, and its graph row. */
struct Arrival
{
    GlobalIndex id { 0 };       /**< global id */
    std::size_t position { 0 }; /**< index in arrival order */
    std::size_t begin { 0 };    /**< first neighbour in the message */
    std::size_t degree { 0 };   /**< number of neighbours */
    std::size_t message { 0 };  /**< which message */
};

/** @brief "" or an error naming a cell that arrives twice in @p sorted (ascending id). */
std::string duplicateArrival(const std::vector<Arrival>& sorted)
{
    for (std::size_t k { 1 }; k < sorted.size(); ++k)
    {
        if (sorted[k].id == sorted[k - 1].id)
        {
            return "Migration: cell " + std::to_string(sorted[k].id) +
                   " arrives from two ranks (it was owned twice before the migration)";
        }
    }
    return {};
}
} // namespace

Migration::Migration(
    mpi::MPIEnvironment env,
    const CellGraph& owned,
    std::span<const int> newOwners,
    std::source_location where
)
    : env_(mpi::detail::privateEnvironment(env, where)), nOldOwned_(owned.nCells())
{
    mpi::agreeOnSetUp(env.comm(), mpi::detail::SetUpCall::Migration, where);
    // every rank is here: migrate()'s agreements on the private duplicate can name a rank that
    // skips one (not only "has not made its duplicate")
    mpi::prepareSetUpAgreement(env_.comm(), where);
    mpi::raiseIfAnyFailed(env_.comm(), badOwners(owned, newOwners, env_.sizeRank()), where);
    const std::vector<mpi::SparseMessage> outgoing { planSends(owned, newOwners) };
    receiveCells(
        mpi::sparseExchange(
            env_.comm(),
            mpi::detail::takeTags(env_.comm(), 1, where),
            outgoing,
            "Migration: cells",
            where
        ),
        where
    );
}

std::vector<mpi::SparseMessage>
Migration::planSends(const CellGraph& owned, std::span<const int> newOwners)
{
    std::map<int, std::vector<std::size_t>> byOwner;
    for (std::size_t i { 0 }; i < owned.nCells(); ++i)
    {
        byOwner[newOwners[i]].push_back(i);
        nSent_ += newOwners[i] != env_.rank() ? 1 : 0;
    }
    // one message per new owner: id, degree, neighbour ids of each cell
    std::vector<mpi::SparseMessage> outgoing;
    for (const auto& [rank, rows] : byOwner)
    {
        sendRanks_.push_back(rank);
        sendRows_.insert(sendRows_.end(), rows.begin(), rows.end());
        sendOffsets_.push_back(sendRows_.size());
        mpi::SparseMessage& message { outgoing.emplace_back(mpi::SparseMessage { rank, {} }) };
        for (const std::size_t i : rows)
        {
            message.data.push_back(owned.globalId(i));
            message.data.push_back(static_cast<std::int64_t>(owned.neighbours(i).size()));
            message.data.insert(
                message.data.end(), owned.neighbours(i).begin(), owned.neighbours(i).end()
            );
        }
    }
    return outgoing;
}

void Migration::receiveCells(
    const std::vector<mpi::SparseMessage>& incoming, const std::source_location& where
)
{
    std::vector<Arrival> arrivals;
    for (std::size_t m { 0 }; m < incoming.size(); ++m)
    {
        const std::vector<std::int64_t>& data { incoming[m].data };
        receiveRanks_.push_back(incoming[m].rank);
        for (std::size_t k { 0 }; k < data.size();)
        {
            const auto degree = static_cast<std::size_t>(data[k + 1]);
            arrivals.push_back({ data[k], arrivals.size(), k + 2, degree, m });
            k += 2 + degree;
        }
        receiveOffsets_.push_back(arrivals.size());
    }
    std::vector<Arrival> sorted { arrivals };
    std::sort(
        sorted.begin(), sorted.end(), [](const Arrival& a, const Arrival& b) { return a.id < b.id; }
    );
    mpi::raiseIfAnyFailed(env_.comm(), duplicateArrival(sorted), where);
    std::vector<GlobalIndex> ids;
    std::vector<std::size_t> offsets { 0 };
    std::vector<GlobalIndex> adjacency;
    receiveRows_.assign(arrivals.size(), 0);
    for (std::size_t n { 0 }; n < sorted.size(); ++n)
    {
        const Arrival& a { sorted[n] };
        const auto first = incoming[a.message].data.begin() + static_cast<std::ptrdiff_t>(a.begin);
        ids.push_back(a.id);
        adjacency.insert(adjacency.end(), first, first + static_cast<std::ptrdiff_t>(a.degree));
        offsets.push_back(adjacency.size());
        receiveRows_[a.position] = n;
    }
    cells_ = CellGraph(std::move(ids), std::move(offsets), std::move(adjacency), where);
}

void Migration::agreeOnRows(
    const std::vector<std::size_t>& rows,
    const std::vector<std::string>& labels,
    std::size_t newExtent,
    const std::source_location& where
) const
{
    const std::array<std::int64_t, 1> fields { static_cast<std::int64_t>(rows.size()) };
    mpi::agreeOnSetUp(
        env_.comm(), mpi::detail::SetUpCall::MigrationMigrate, where, fields, "number of fields"
    );
    std::string error;
    for (std::size_t f { 0 }; f < rows.size() && error.empty(); ++f)
    {
        if (rows[f] < nOldOwned_)
        {
            error = "Migration::migrate: field '" + labels[f] + "' has " + std::to_string(rows[f]) +
                    " rows, the owned cells need " + std::to_string(nOldOwned_);
        }
    }
    if (error.empty() && newExtent < nNewOwned())
    {
        error = "Migration::migrate: new extent " + std::to_string(newExtent) + " below the " +
                std::to_string(nNewOwned()) + " cells this rank owns after the migration";
    }
    mpi::raiseIfAnyFailed(env_.comm(), error, where);
}

void Migration::moveRows(
    std::span<const std::byte> oldRows,
    std::size_t rowBytes,
    std::span<std::byte> newRows,
    std::source_location where
) const
{
    FIELDSYNC_CHECK_AT(
        oldRows.size() == nOldOwned_ * rowBytes && newRows.size() == nNewOwned() * rowBytes,
        "Migration::moveRows: " + std::to_string(oldRows.size()) + " and " +
            std::to_string(newRows.size()) + " bytes for " + std::to_string(nOldOwned_) + " and " +
            std::to_string(nNewOwned()) + " rows of " + std::to_string(rowBytes),
        where
    );
    std::vector<MPI_Request> requests;
    requests.reserve(sendRanks_.size() + receiveRanks_.size());
    std::vector<std::vector<std::byte>> received(receiveRanks_.size());
    std::vector<std::vector<std::byte>> sent(sendRanks_.size());
    const int tag { mpi::detail::takeTags(env_.comm(), 1, where) };
    postReceives(tag, rowBytes, received, requests, where);
    const std::size_t receives { requests.size() };
    postSends(tag, oldRows, rowBytes, sent, received, requests, where);
    std::vector<MPI_Status> statuses(requests.size());
    try
    {
        mpi::waitWithTimeout(
            [&requests, &statuses, &where]
            {
                int done { 0 };
                FIELDSYNC_MPI_AT(
                    MPI_Testall(
                        static_cast<int>(requests.size()), requests.data(), &done, statuses.data()
                    ),
                    where
                );
                return done != 0;
            },
            [&requests] { return std::to_string(requests.size()) + " row messages"; },
            mpi::WaitPolicy::fromEnvironment(),
            "migration",
            "Migration::moveRows",
            where
        );
    }
    catch (...)
    {
        keepInFlight(std::move(requests), receives, std::move(received), std::move(sent));
        throw;
    }
    // each arrived row to its place in the new (ascending id) numbering
    for (std::size_t p { 0 }, i { 0 }; p < receiveRanks_.size(); ++p)
    {
        if (receiveRanks_[p] != env_.rank())
        {
            mpi::detail::checkReceived(
                statuses[i++], MPI_BYTE, received[p].size(), "Migration::moveRows", where
            );
        }
        for (std::size_t k { receiveOffsets_[p] }; k < receiveOffsets_[p + 1]; ++k)
        {
            const std::byte* row { received[p].data() + (k - receiveOffsets_[p]) * rowBytes };
            std::copy(row, row + rowBytes, newRows.data() + receiveRows_[k] * rowBytes);
        }
    }
}

void Migration::postReceives(
    int tag,
    std::size_t rowBytes,
    std::vector<std::vector<std::byte>>& received,
    std::vector<MPI_Request>& requests,
    const std::source_location& where
) const
{
    for (std::size_t p { 0 }; p < receiveRanks_.size(); ++p)
    {
        const std::size_t bytes { (receiveOffsets_[p + 1] - receiveOffsets_[p]) * rowBytes };
        FIELDSYNC_CHECK_AT(
            bytes <= INT_MAX,
            "Migration::moveRows: " + std::to_string(bytes) + " bytes from rank " +
                std::to_string(receiveRanks_[p]) + " exceed one MPI message",
            where
        );
        received[p].resize(bytes);
        if (receiveRanks_[p] != env_.rank())
        {
            FIELDSYNC_MPI_AT(
                MPI_Irecv(
                    received[p].data(),
                    static_cast<int>(bytes),
                    MPI_BYTE,
                    receiveRanks_[p],
                    tag,
                    env_.comm(),
                    &requests.emplace_back()
                ),
                where
            );
        }
    }
}

void Migration::keepInFlight(
    std::vector<MPI_Request> requests,
    std::size_t receives,
    std::vector<std::vector<std::byte>> received,
    std::vector<std::vector<std::byte>> sent
) noexcept
{
    // A wait that failed (its time-out as an error) leaves messages in flight: the receives are
    // cancelled, and what MPI may still read or write is kept, never freed (a bounded leak
    // after an error, instead of MPI writing into freed memory).
    for (std::size_t i { 0 }; i < receives; ++i)
    {
        if (requests[i] != MPI_REQUEST_NULL)
        {
            MPI_Cancel(&requests[i]);
        }
    }
    struct InFlight
    {
        std::vector<MPI_Request> requests;            /**< still pending */
        std::vector<std::vector<std::byte>> received; /**< their receive buffers */
        std::vector<std::vector<std::byte>> sent;     /**< their send buffers */
    };
    static_cast<void>(new (std::nothrow)
                          InFlight { std::move(requests), std::move(received), std::move(sent) });
}

void Migration::postSends(
    int tag,
    std::span<const std::byte> oldRows,
    std::size_t rowBytes,
    std::vector<std::vector<std::byte>>& sent,
    std::vector<std::vector<std::byte>>& received,
    std::vector<MPI_Request>& requests,
    const std::source_location& where
) const
{
    for (std::size_t p { 0 }; p < sendRanks_.size(); ++p)
    {
        for (std::size_t k { sendOffsets_[p] }; k < sendOffsets_[p + 1]; ++k)
        {
            const std::byte* row { oldRows.data() + sendRows_[k] * rowBytes };
            sent[p].insert(sent[p].end(), row, row + rowBytes);
        }
        if (sendRanks_[p] == env_.rank()) // the rows that stay: the self "message"
        {
            const auto mine = std::find(receiveRanks_.begin(), receiveRanks_.end(), env_.rank());
            received[static_cast<std::size_t>(mine - receiveRanks_.begin())] = sent[p];
            continue;
        }
        FIELDSYNC_MPI_AT(
            MPI_Isend(
                sent[p].data(),
                static_cast<int>(sent[p].size()),
                MPI_BYTE,
                sendRanks_[p],
                tag,
                env_.comm(),
                &requests.emplace_back()
            ),
            where
        );
    }
}

} // namespace fieldsync::partition
