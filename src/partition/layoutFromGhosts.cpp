// SPDX-License-Identifier: MIT
// A HaloLayout from a ghost list in the caller's numbering: check what one rank can check, group
// the ghosts by remote cell, ask the owners for the cells' global ids in one answered exchange
// (which also tells each owner what each asker needs and agrees on errors), number the ghosts
// as every HaloLayout does and translate the caller's neighbours.
#include "fieldsync/partition/layoutFromGhosts.hpp"

#include "fieldsync/core/error.hpp"
#include "../halo/ghostListCheck.hpp"
#include "fieldsync/mpi/answeredExchange.hpp"
#include "fieldsync/mpi/detail/privateComm.hpp"
#include "fieldsync/mpi/setUpAgreement.hpp"
#include "fieldsync/mpi/sparseExchange.hpp"

#include <algorithm>
#include <climits>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

namespace fieldsync::partition
{

namespace
{

/** @brief One run of layoutFromGhosts(): the state its steps share. */
class GhostLayoutSetUp
{
public:
    GhostLayoutSetUp(
        MPI_Comm comm,
        const mpi::MPIEnvironment& env,
        std::span<const GlobalIndex> ownedIds,
        std::span<const LocalIndex> ghostCells,
        std::span<const halo::GhostOwner> ghostOwners,
        const std::source_location& where
    )
        : comm_(comm), self_(env.rank()), nRanks_(env.sizeRank()), ownedIds_(ownedIds),
          ghostCells_(ghostCells), ghostOwners_(ghostOwners), where_(where)
    {
    }

    void checkGhosts();
    void
    checkAdjacency(std::span<const std::size_t> offsets, std::span<const LocalIndex> neighbours);
    void groupRemoteCells();
    void askOwners();
    [[nodiscard]] HaloLayout
    makeLayout(std::span<const std::size_t> offsets, std::span<const LocalIndex> neighbours) const;

private:
    void fail(const std::string& message)
    {
        if (error_.empty())
        {
            error_ = "layoutFromGhosts: " + message + " (rank " + std::to_string(self_) + ")";
        }
    }
    void checkOwnedIds();
    [[nodiscard]] std::int64_t idOf(int asker, std::int64_t index);
    [[nodiscard]] LocalIndex entryOfGhost(LocalIndex ghost) const;
    [[nodiscard]] halo::RankSimplexCommMap sendMap() const;
    [[nodiscard]] halo::RankSimplexCommMap receiveMap(const std::vector<int>& ghostOwners) const;

    MPI_Comm comm_;                                           /**< the private duplicate */
    int self_;                                                /**< this rank */
    int nRanks_;                                              /**< ranks of comm_ */
    std::span<const GlobalIndex> ownedIds_;                   /**< the caller's owned ids */
    std::span<const LocalIndex> ghostCells_;                  /**< the caller's ghost indices */
    std::span<const halo::GhostOwner> ghostOwners_;           /**< the caller's ghost owners */
    std::source_location where_;                              /**< the caller's call site */
    std::string error_;                                       /**< the first bad input found here */
    std::vector<std::pair<LocalIndex, std::size_t>> byGhost_; /**< (ghost index, entry), sorted */
    std::vector<halo::GhostOwner> remote_;       /**< each remote cell once, by (rank, index) */
    std::vector<LocalIndex> slotOfEntry_;        /**< entry k -> its remote cell */
    std::vector<GlobalIndex> remoteIds_;         /**< the owners' answers: remote cells' ids */
    std::vector<int> sendRanks_;                 /**< askers, ascending */
    std::vector<std::size_t> sendOffsets_ { 0 }; /**< their ranges in sendIndices_ */
    std::vector<LocalIndex> sendIndices_;        /**< the cells each asker needs, by id */
};

/** @brief Owned ids: each >= 0, none twice. */
void GhostLayoutSetUp::checkOwnedIds()
{
    if (ownedIds_.size() >= static_cast<std::size_t>(INT_MAX))
    {
        fail(std::to_string(ownedIds_.size()) + " owned cells exceed the local index range");
        return;
    }
    std::vector<std::pair<GlobalIndex, std::size_t>> sorted;
    sorted.reserve(ownedIds_.size());
    for (std::size_t i { 0 }; i < ownedIds_.size(); ++i)
    {
        if (ownedIds_[i] < 0)
        {
            fail(
                "owned cell " + std::to_string(i) + " has global id " +
                std::to_string(ownedIds_[i]) + " (ids must be >= 0)"
            );
        }
        sorted.emplace_back(ownedIds_[i], i);
    }
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t j { 1 }; j < sorted.size(); ++j)
    {
        if (sorted[j].first == sorted[j - 1].first)
        {
            fail(
                "global id " + std::to_string(sorted[j].first) + " is given for owned cells " +
                std::to_string(sorted[j - 1].second) + " and " + std::to_string(sorted[j].second)
            );
        }
    }
}

/** @brief What one rank can check of its ghost list (GhostList's check, no ghost owned by this
 * rank itself), then the ghosts sorted by index for the look-ups. */
void GhostLayoutSetUp::checkGhosts()
{
    checkOwnedIds();
    const halo::detail::GhostListCheck check(
        ownedIds_.size(),
        ghostCells_,
        ghostOwners_,
        self_,
        nRanks_,
        false,
        [this](const std::string& message) { fail(message); }
    );
    if (ghostCells_.size() != ghostOwners_.size())
    {
        return;
    }
    for (std::size_t k { 0 }; k < ghostCells_.size(); ++k)
    {
        byGhost_.emplace_back(ghostCells_[k], k);
    }
    std::sort(byGhost_.begin(), byGhost_.end());
}

/** @brief The entry of ghost index @p ghost, or -1 when it is not a listed ghost. */
LocalIndex GhostLayoutSetUp::entryOfGhost(LocalIndex ghost) const
{
    const auto at = std::lower_bound(
        byGhost_.begin(), byGhost_.end(), std::pair<LocalIndex, std::size_t> { ghost, 0 }
    );
    return at != byGhost_.end() && at->first == ghost ? static_cast<LocalIndex>(at->second) : -1;
}

/** @brief The CSR structure, and each neighbour an owned cell (not the cell) or a listed ghost. */
void GhostLayoutSetUp::checkAdjacency(
    std::span<const std::size_t> offsets, std::span<const LocalIndex> neighbours
)
{
    const std::size_t nOwned { ownedIds_.size() };
    if (offsets.size() != nOwned + 1 || offsets.front() != 0 ||
        offsets.back() != neighbours.size() || !std::is_sorted(offsets.begin(), offsets.end()))
    {
        fail(
            std::to_string(offsets.size()) + " offsets (from " +
            (offsets.empty() ? std::string("none") : std::to_string(offsets.front())) + " to " +
            (offsets.empty() ? std::string("none") : std::to_string(offsets.back())) + ") for " +
            std::to_string(nOwned) + " owned cells and " + std::to_string(neighbours.size()) +
            " neighbours (need owned + 1, from 0, non-decreasing, to the neighbours' count)"
        );
        return;
    }
    for (std::size_t i { 0 }; i < nOwned; ++i)
    {
        for (std::size_t e { offsets[i] }; e < offsets[i + 1]; ++e)
        {
            const LocalIndex nb { neighbours[e] };
            const bool owned { nb >= 0 && static_cast<std::size_t>(nb) < nOwned };
            if (owned ? static_cast<std::size_t>(nb) == i : entryOfGhost(nb) < 0)
            {
                fail(
                    "owned cell " + std::to_string(i) + " (id " + std::to_string(ownedIds_[i]) +
                    ") has neighbour " + std::to_string(nb) + ", " +
                    (owned ? "itself" : "neither an owned cell nor a listed ghost")
                );
                return;
            }
        }
    }
}

/** @brief Each remote cell once, ascending (rank, index); entry k's cell is slotOfEntry_[k]. */
void GhostLayoutSetUp::groupRemoteCells()
{
    if (!error_.empty())
    {
        return; // this rank asks nothing, but still answers and agrees
    }
    std::vector<std::size_t> order(ghostOwners_.size());
    std::iota(order.begin(), order.end(), std::size_t { 0 });
    const auto key = [this](std::size_t k)
    {
        return std::pair { ghostOwners_[k].rank, ghostOwners_[k].index };
    };
    std::sort(
        order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return key(a) < key(b); }
    );
    slotOfEntry_.assign(order.size(), 0);
    for (const std::size_t k : order)
    {
        if (remote_.empty() || key(k) != std::pair { remote_.back().rank, remote_.back().index })
        {
            remote_.push_back(ghostOwners_[k]);
        }
        slotOfEntry_[k] = static_cast<LocalIndex>(remote_.size() - 1);
    }
}

/** @brief Owner side: the id of owned cell @p index that @p asker asks for, or -1 (named). */
std::int64_t GhostLayoutSetUp::idOf(int asker, std::int64_t index)
{
    if (index >= 0 && static_cast<std::size_t>(index) < ownedIds_.size())
    {
        return ownedIds_[static_cast<std::size_t>(index)];
    }
    fail(
        "rank " + std::to_string(asker) + " lists a ghost with owner index " +
        std::to_string(index) + " on this rank, which owns " + std::to_string(ownedIds_.size()) +
        " cells (0.." + std::to_string(static_cast<std::int64_t>(ownedIds_.size()) - 1) + ")"
    );
    return -1;
}

/**
 * @brief Collective: one answered exchange. Each rank asks each owner for the ids of its remote
 * cells (ascending index); the owner answers them and keeps, per asker, the cells it needs in
 * the order of their ids (the asker's receive order); the agreement says whether any rank found
 * bad input, and then every rank throws.
 */
void GhostLayoutSetUp::askOwners()
{
    std::vector<mpi::SparseMessage> questions;
    for (const halo::GhostOwner& cell : remote_)
    {
        if (questions.empty() || questions.back().rank != cell.rank)
        {
            questions.push_back({ cell.rank, {} });
        }
        questions.back().data.push_back(cell.index);
    }
    const mpi::AnsweredExchange answered { mpi::answeredExchange(
        comm_,
        std::move(questions),
        0, // one id per index asked for
        [this](const mpi::SparseMessage& question, std::span<std::int64_t> answer)
        {
            for (std::size_t j { 0 }; j < question.data.size(); ++j)
            {
                answer[j] = idOf(question.rank, question.data[j]);
            }
        },
        [this](std::span<const std::int64_t> answers)
        {
            const bool bad {
                !error_.empty() ||
                std::any_of(answers.begin(), answers.end(), [](std::int64_t id) { return id < 0; })
            };
            return mpi::AgreementBid { bad ? 1U : 0U, 0, 0 };
        },
        mpi::WaitPolicy::fromEnvironment(),
        "layoutFromGhosts",
        where_
    ) };
    if (answered.agreed[0] != 0)
    {
        mpi::raiseIfAnyFailed(comm_, error_, where_);
    }
    remoteIds_.assign(answered.answers.begin(), answered.answers.end());
    for (const mpi::SparseMessage& question : answered.questions) // by asker, ascending
    {
        std::vector<LocalIndex> cells(question.data.begin(), question.data.end());
        std::sort(
            cells.begin(),
            cells.end(),
            [this](LocalIndex a, LocalIndex b) {
                return ownedIds_[static_cast<std::size_t>(a)] <
                       ownedIds_[static_cast<std::size_t>(b)];
            }
        );
        sendRanks_.push_back(question.rank);
        sendIndices_.insert(sendIndices_.end(), cells.begin(), cells.end());
        sendOffsets_.push_back(sendIndices_.size());
    }
}

halo::RankSimplexCommMap GhostLayoutSetUp::sendMap() const
{
    return halo::RankSimplexCommMap(nRanks_, sendRanks_, sendOffsets_, sendIndices_, where_);
}

/** @brief Per owner: its ghosts, one contiguous range each (@p ghostOwners is ascending). */
halo::RankSimplexCommMap GhostLayoutSetUp::receiveMap(const std::vector<int>& ghostOwners) const
{
    const std::size_t nOwned { ownedIds_.size() };
    std::vector<int> ranks;
    std::vector<std::size_t> offsets;
    std::vector<LocalIndex> indices(ghostOwners.size());
    for (std::size_t g { 0 }; g < ghostOwners.size(); ++g)
    {
        if (ranks.empty() || ranks.back() != ghostOwners[g])
        {
            ranks.push_back(ghostOwners[g]);
            offsets.push_back(g);
        }
        indices[g] = static_cast<LocalIndex>(nOwned + g);
    }
    offsets.push_back(ghostOwners.size());
    return halo::RankSimplexCommMap(
        nRanks_, std::move(ranks), std::move(offsets), std::move(indices), where_
    );
}

/**
 * @brief The layout: owned cells as given, then the remote cells by (owner, id); the caller's
 * neighbours translated, the ghosts they name of layer 1, the others of layer 2.
 */
HaloLayout GhostLayoutSetUp::makeLayout(
    std::span<const std::size_t> offsets, std::span<const LocalIndex> neighbours
) const
{
    const std::size_t nOwned { ownedIds_.size() };
    std::vector<std::size_t> order(remote_.size()); // remote slots in layout order
    std::iota(order.begin(), order.end(), std::size_t { 0 });
    std::sort( // slots are by (rank, index): by (rank, id) within each rank
        order.begin(),
        order.end(),
        [this](std::size_t a, std::size_t b)
        {
            return std::pair { remote_[a].rank, remoteIds_[a] } <
                   std::pair { remote_[b].rank, remoteIds_[b] };
        }
    );
    std::vector<LocalIndex> localOfSlot(remote_.size());
    std::vector<GlobalIndex> globalIds(ownedIds_.begin(), ownedIds_.end());
    std::vector<int> ghostOwners;
    for (std::size_t g { 0 }; g < order.size(); ++g)
    {
        localOfSlot[order[g]] = static_cast<LocalIndex>(nOwned + g);
        globalIds.push_back(remoteIds_[order[g]]);
        ghostOwners.push_back(remote_[order[g]].rank);
    }
    halo::RankSimplexCommMap receive { receiveMap(ghostOwners) };
    std::vector<int> ghostLayers(order.size(), 2);
    std::vector<LocalIndex> local(neighbours.begin(), neighbours.end());
    for (LocalIndex& nb : local)
    {
        if (static_cast<std::size_t>(nb) >= nOwned)
        {
            nb = localOfSlot[static_cast<std::size_t>(
                slotOfEntry_[static_cast<std::size_t>(entryOfGhost(nb))]
            )];
            ghostLayers[static_cast<std::size_t>(nb) - nOwned] = 1;
        }
    }
    return HaloLayout(
        nOwned,
        std::move(globalIds),
        std::move(ghostOwners),
        std::move(ghostLayers),
        std::vector<std::size_t>(offsets.begin(), offsets.end()),
        std::move(local),
        sendMap(),
        std::move(receive),
        0
    );
}
} // namespace

HaloLayout layoutFromGhosts(
    const mpi::MPIEnvironment& env,
    std::span<const GlobalIndex> ownedIds,
    std::span<const LocalIndex> ghostCells,
    std::span<const halo::GhostOwner> ghostOwners,
    std::span<const std::size_t> offsets,
    std::span<const LocalIndex> neighbours,
    std::source_location where
)
{
    mpi::agreeOnSetUp(env.comm(), mpi::detail::SetUpCall::LayoutFromGhosts, where);
    GhostLayoutSetUp setUp(
        mpi::detail::privateComm(env.comm(), where), env, ownedIds, ghostCells, ghostOwners, where
    );
    setUp.checkGhosts();
    setUp.checkAdjacency(offsets, neighbours);
    setUp.groupRemoteCells();
    setUp.askOwners();
    return setUp.makeLayout(offsets, neighbours);
}

} // namespace fieldsync::partition
