// SPDX-License-Identifier: MIT
// The ghost-list set-up (PetscSFSetGraph + PetscSFSetUp): check the list, group it by owner,
// tell each owner what is needed with one sparse exchange, agree on errors, make the maps.
#include "fieldsync/halo/ghostList.hpp"

#include "setUpComm.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/mpi/collectives.hpp"
#include "fieldsync/mpi/setUpAgreement.hpp"
#include "fieldsync/mpi/sparseExchange.hpp"

#include <algorithm>
#include <climits>
#include <string>
#include <vector>

namespace fieldsync::halo
{

namespace
{
constexpr int ghostListTag { 7401 }; /**< the set-up's sparse exchange (on a private duplicate) */

/** @brief One run of the set-up: the state its steps share. */
class GhostListSetUp
{
public:
    GhostListSetUp(
        MPI_Comm comm,
        const mpi::MPIEnvironment& env,
        std::size_t nOwned,
        std::span<const LocalIndex> ghostCells,
        std::span<const GhostOwner> owners,
        const std::source_location& where
    )
        : comm_(comm), self_(env.rank()), nRanks_(env.sizeRank()), nOwned_(nOwned),
          ghostCells_(ghostCells), owners_(owners), where_(where)
    {
    }

    void checkLocally();
    void groupByOwner();
    void askOwners();
    void agreeOnErrors() const;
    [[nodiscard]] RankSimplexCommMap takeSendMap();
    [[nodiscard]] RankSimplexCommMap takeReceiveMap();

private:
    void fail(const std::string& message);
    void checkEntry(std::size_t k);
    void checkDuplicates();
    void readRequests(int requester, std::span<const std::int64_t> indices);

    MPI_Comm comm_;                          /**< the cached set-up duplicate */
    int self_;                               /**< this rank */
    int nRanks_;                             /**< ranks of comm_ */
    std::size_t nOwned_;                     /**< owned cells here */
    std::span<const LocalIndex> ghostCells_; /**< the caller's ghost indices */
    std::span<const GhostOwner> owners_;     /**< the caller's owners */
    std::source_location where_;             /**< the caller's call site */
    std::string error_;                      /**< the first bad input found here */
    std::vector<char> bad_;                  /**< entries left out of the exchange */
    std::vector<std::size_t> order_;         /**< entries grouped by owner (empty: as given) */
    std::vector<int> receiveRanks_;          /**< owners, ascending */
    std::vector<std::size_t> receiveOffsets_ { 0 }; /**< their ranges in the grouped order */
    std::vector<int> sendRanks_;                    /**< requesters, ascending */
    std::vector<std::size_t> sendOffsets_ { 0 };    /**< their ranges in sendIndices_ */
    std::vector<LocalIndex> sendIndices_;           /**< the cells each requester needs */
};

void GhostListSetUp::fail(const std::string& message)
{
    if (error_.empty())
    {
        error_ = "GhostList: " + message + " (rank " + std::to_string(self_) + ")";
    }
}

/** @brief Checks what this rank can check alone: lengths, ghost indices, owners' ranks. */
void GhostListSetUp::checkLocally()
{
    bad_.assign(owners_.size(), 0);
    if (ghostCells_.size() != owners_.size())
    {
        fail(
            std::to_string(ghostCells_.size()) + " ghost cells but " +
            std::to_string(owners_.size()) + " owners (one owner per ghost cell)"
        );
        std::fill(bad_.begin(), bad_.end(), char { 1 });
        return;
    }
    if (nOwned_ >= static_cast<std::size_t>(INT_MAX))
    {
        fail(std::to_string(nOwned_) + " owned cells exceed the local index range");
    }
    for (std::size_t k { 0 }; k < owners_.size(); ++k)
    {
        const LocalIndex ghost { ghostCells_[k] };
        const GhostOwner owner { owners_[k] };
        const bool good { ghost >= 0 && static_cast<std::size_t>(ghost) >= nOwned_ &&
                          owner.rank >= 0 && owner.rank < nRanks_ && owner.index >= 0 &&
                          (owner.rank != self_ || static_cast<std::size_t>(owner.index) < nOwned_
                          ) };
        if (!good) [[unlikely]]
        {
            checkEntry(k); // says why
        }
    }
    checkDuplicates();
}

/** @brief One entry: ghost index not owned, owner rank in range, owner index plausible. */
void GhostListSetUp::checkEntry(std::size_t k)
{
    const LocalIndex ghost { ghostCells_[k] };
    const GhostOwner owner { owners_[k] };
    const bool ghostOwned { ghost < 0 || static_cast<std::size_t>(ghost) < nOwned_ };
    const bool rankOut { owner.rank < 0 || owner.rank >= nRanks_ };
    const bool indexOut { owner.index < 0 || (owner.rank == self_ &&
                                              static_cast<std::size_t>(owner.index) >= nOwned_) };
    if (!ghostOwned && !rankOut && !indexOut) [[likely]]
    {
        return;
    }
    bad_[k] = 1;
    const std::string entry { "entry " + std::to_string(k) + " (ghost cell " +
                              std::to_string(ghost) + ")" };
    if (ghostOwned)
    {
        fail(
            entry + ": the ghost index is " +
            (ghost < 0 ? std::string("negative")
                       : "an owned cell (this rank owns 0.." + std::to_string(nOwned_ - 1) + ")")
        );
    }
    else if (rankOut)
    {
        fail(
            entry + ": owner rank " + std::to_string(owner.rank) + " is out of range (ranks 0.." +
            std::to_string(nRanks_ - 1) + ")"
        );
    }
    else
    {
        fail(
            entry + ": owner index " + std::to_string(owner.index) + " on rank " +
            std::to_string(owner.rank) + " is " +
            (owner.index < 0 ? std::string("negative")
                             : "not below this rank's " + std::to_string(nOwned_) + " owned cells")
        );
    }
}

/** @brief A ghost index listed twice (direct table over the ghost range, else a sort). */
void GhostListSetUp::checkDuplicates()
{
    LocalIndex highest { -1 };
    for (std::size_t k { 0 }; k < ghostCells_.size(); ++k)
    {
        highest = bad_[k] != 0 ? highest : std::max(highest, ghostCells_[k]);
    }
    if (highest < 0)
    {
        return;
    }
    const std::size_t range { static_cast<std::size_t>(highest) + 1 - nOwned_ };
    if (range <= 4 * ghostCells_.size() + 1024)
    {
        std::vector<std::uint32_t> firstEntry(range, 0); // entry + 1, 0: not seen
        for (std::size_t k { 0 }; k < ghostCells_.size(); ++k)
        {
            if (bad_[k] != 0)
            {
                continue;
            }
            auto& seen = firstEntry[static_cast<std::size_t>(ghostCells_[k]) - nOwned_];
            if (seen != 0)
            {
                fail(
                    "ghost cell " + std::to_string(ghostCells_[k]) + " is listed twice (entries " +
                    std::to_string(seen - 1) + " and " + std::to_string(k) + ")"
                );
                bad_[k] = 1;
                continue;
            }
            seen = static_cast<std::uint32_t>(k + 1);
        }
        return;
    }
    std::vector<std::pair<LocalIndex, std::size_t>> sorted;
    sorted.reserve(ghostCells_.size());
    for (std::size_t k { 0 }; k < ghostCells_.size(); ++k)
    {
        if (bad_[k] == 0)
        {
            sorted.emplace_back(ghostCells_[k], k);
        }
    }
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t j { 1 }; j < sorted.size(); ++j)
    {
        if (sorted[j].first == sorted[j - 1].first)
        {
            fail(
                "ghost cell " + std::to_string(sorted[j].first) + " is listed twice (entries " +
                std::to_string(sorted[j - 1].second) + " and " + std::to_string(sorted[j].second) +
                ")"
            );
            bad_[sorted[j].second] = 1;
        }
    }
}

/** @brief Groups the good entries by owner rank (ascending), keeping the list's order within one
 * owner; a list already grouped is not copied. */
void GhostListSetUp::groupByOwner()
{
    bool grouped { true };
    bool anyBad { false };
    for (std::size_t k { 0 }; k < owners_.size(); ++k)
    {
        anyBad = anyBad || bad_[k] != 0;
        grouped = grouped && (k == 0 || owners_[k - 1].rank <= owners_[k].rank);
    }
    if (!grouped || anyBad)
    {
        order_.reserve(owners_.size());
        for (std::size_t k { 0 }; k < owners_.size(); ++k)
        {
            if (bad_[k] == 0)
            {
                order_.push_back(k);
            }
        }
        std::stable_sort(
            order_.begin(),
            order_.end(),
            [this](std::size_t a, std::size_t b) { return owners_[a].rank < owners_[b].rank; }
        );
    }
    const std::size_t n { anyBad || !grouped ? order_.size() : owners_.size() };
    for (std::size_t j { 0 }; j < n; ++j)
    {
        const int rank { owners_[order_.empty() ? j : order_[j]].rank };
        if (receiveRanks_.empty() || receiveRanks_.back() != rank)
        {
            if (!receiveRanks_.empty())
            {
                receiveOffsets_.push_back(j);
            }
            receiveRanks_.push_back(rank);
        }
    }
    if (!receiveRanks_.empty())
    {
        receiveOffsets_.push_back(n);
    }
}

/** @brief The sparse exchange: every owner learns which of its cells each requester needs. */
void GhostListSetUp::askOwners()
{
    const auto entry = [this](std::size_t j)
    {
        return order_.empty() ? j : order_[j];
    };
    std::vector<mpi::SparseMessage> outgoing;
    outgoing.reserve(receiveRanks_.size());
    for (std::size_t r { 0 }; r < receiveRanks_.size(); ++r)
    {
        if (receiveRanks_[r] == self_)
        {
            continue;
        }
        mpi::SparseMessage message { receiveRanks_[r], {} };
        message.data.resize(receiveOffsets_[r + 1] - receiveOffsets_[r]);
        for (std::size_t j { receiveOffsets_[r] }; j < receiveOffsets_[r + 1]; ++j)
        {
            message.data[j - receiveOffsets_[r]] = owners_[entry(j)].index;
        }
        outgoing.push_back(std::move(message));
    }
    const std::vector<mpi::SparseMessage> incoming {
        mpi::sparseExchange(comm_, ghostListTag, outgoing, "GhostList", where_)
    };
    const auto selfSlot = std::lower_bound(receiveRanks_.begin(), receiveRanks_.end(), self_);
    const bool hasSelf { selfSlot != receiveRanks_.end() && *selfSlot == self_ };
    std::size_t in { 0 };
    for (int pass { 0 }; pass < 2; ++pass) // incoming below self, then self, then above
    {
        while (in < incoming.size() && (pass == 1 || incoming[in].rank < self_))
        {
            readRequests(incoming[in].rank, incoming[in].data);
            ++in;
        }
        if (pass == 0 && hasSelf)
        {
            const auto r = static_cast<std::size_t>(selfSlot - receiveRanks_.begin());
            sendRanks_.push_back(self_);
            for (std::size_t j { receiveOffsets_[r] }; j < receiveOffsets_[r + 1]; ++j)
            {
                sendIndices_.push_back(owners_[entry(j)].index);
            }
            sendOffsets_.push_back(sendIndices_.size());
        }
    }
}

/** @brief Owner side: @p requester needs @p indices; each must be one of this rank's cells. */
void GhostListSetUp::readRequests(int requester, std::span<const std::int64_t> indices)
{
    sendRanks_.push_back(requester);
    sendIndices_.reserve(sendIndices_.size() + indices.size());
    for (std::size_t i { 0 }; i < indices.size(); ++i)
    {
        if (static_cast<std::uint64_t>(indices[i]) >= nOwned_)
        {
            fail(
                "rank " + std::to_string(requester) + " asks for owner index " +
                std::to_string(indices[i]) + " (its entry " + std::to_string(i) +
                " for this rank), but this rank owns " + std::to_string(nOwned_) + " cells (0.." +
                std::to_string(static_cast<std::int64_t>(nOwned_) - 1) + ")"
            );
            continue;
        }
        sendIndices_.push_back(static_cast<LocalIndex>(indices[i]));
    }
    sendOffsets_.push_back(sendIndices_.size());
}

/**
 * @brief Collective: one allreduce finds the lowest rank with bad input; only then does that
 * rank broadcast its text, and every rank throws an Error that names it.
 */
void GhostListSetUp::agreeOnErrors() const
{
    int failing { error_.empty() ? INT_MAX : self_ };
    mpi::allReduce(failing, mpi::ReduceOp::Min, comm_, mpi::CallOptions<> {}, where_);
    if (failing == INT_MAX)
    {
        return;
    }
    std::string text { failing == self_ ? error_ : std::string() };
    int length { static_cast<int>(text.size()) };
    FIELDSYNC_MPI_AT(MPI_Bcast(&length, 1, MPI_INT, failing, comm_), where_);
    text.resize(static_cast<std::size_t>(length));
    FIELDSYNC_MPI_AT(MPI_Bcast(text.data(), length, MPI_CHAR, failing, comm_), where_);
    if (!error_.empty())
    {
        throw Error(error_, where_);
    }
    throw Error(
        "rank " + std::to_string(failing) + " found bad input, so this rank (" +
            std::to_string(self_) + ") stops too: " + text,
        where_
    );
}

RankSimplexCommMap GhostListSetUp::takeSendMap()
{
    return RankSimplexCommMap(
        nRanks_, std::move(sendRanks_), std::move(sendOffsets_), std::move(sendIndices_), where_
    );
}

RankSimplexCommMap GhostListSetUp::takeReceiveMap()
{
    std::vector<LocalIndex> indices(receiveOffsets_.back());
    for (std::size_t j { 0 }; j < indices.size(); ++j)
    {
        indices[j] = ghostCells_[order_.empty() ? j : order_[j]];
    }
    return RankSimplexCommMap(
        nRanks_, std::move(receiveRanks_), std::move(receiveOffsets_), std::move(indices), where_
    );
}
} // namespace

GhostList::GhostList(
    mpi::MPIEnvironment env,
    std::size_t nOwned,
    std::span<const LocalIndex> ghostCells,
    std::span<const GhostOwner> owners,
    std::source_location where
)
    : nOwned_(nOwned)
{
    // the exchange runs on a duplicate cached on env's communicator; the Communicator's own
    // duplicate is made meanwhile (MPI_Comm_idup progresses while the exchange polls)
    mpi::agreeOnSetUp(env.comm(), mpi::SetUpCall::GhostList, where);
    GhostListSetUp setUp(setUpComm(env.comm(), where), env, nOwned, ghostCells, owners, where);
    MPI_Comm own { MPI_COMM_NULL };
    MPI_Request duplicating { MPI_REQUEST_NULL };
    FIELDSYNC_MPI_AT(MPI_Comm_idup(env.comm(), &own, &duplicating), where);
    setUp.checkLocally();
    setUp.groupByOwner();
    setUp.askOwners();
    FIELDSYNC_MPI_AT(MPI_Wait(&duplicating, MPI_STATUS_IGNORE), where);
    own_ = mpi::MPIEnvironment::adopt(own, where);
    setUp.agreeOnErrors();
    sendMap_ = setUp.takeSendMap();
    receiveMap_ = setUp.takeReceiveMap();
}

Communicator GhostList::communicator(std::source_location where)
{
    FIELDSYNC_CHECK_AT(
        !handedOn_,
        "GhostList::communicator: called twice; its communicator went to the first Communicator "
        "(make a Communicator from sendMap() and receiveMap() for another)",
        where
    );
    handedOn_ = true;
    return Communicator::adopt(own_, sendMap_, receiveMap_, CommitOptions {}, where);
}

} // namespace fieldsync::halo
