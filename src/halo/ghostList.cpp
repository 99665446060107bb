// SPDX-License-Identifier: MIT
// The ghost-list set-up (PetscSFSetGraph + PetscSFSetUp): check the list, group it by owner,
// tell each owner what is needed and agree on errors and the context in one answered exchange,
// make the maps.
#include "fieldsync/halo/ghostList.hpp"

#include "exchangeContext.hpp"

#include "fieldsync/core/error.hpp"
#include "ghostListCheck.hpp"
#include "fieldsync/mpi/answeredExchange.hpp"
#include "fieldsync/mpi/detail/collectiveCall.hpp"
#include "fieldsync/mpi/setUpAgreement.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace fieldsync::halo
{

namespace
{

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
          ghostCells_(ghostCells), owners_(owners), where_(where),
          policy_(mpi::WaitPolicy::fromEnvironment())
    {
    }

    /** @brief The wait policy read once for the set-up and its Communicator. */
    [[nodiscard]] const mpi::WaitPolicy& policy() const noexcept { return policy_; }

    void checkLocally();
    void groupByOwner();
    [[nodiscard]] ContextBid askOwners(const ContextBid& mine);
    [[nodiscard]] RankSimplexCommMap takeSendMap();
    [[nodiscard]] RankSimplexCommMap takeReceiveMap();

private:
    void fail(const std::string& message);
    [[nodiscard]] std::int64_t checkRequests(int requester, std::span<const std::int64_t> indices);
    void takeRequests(int requester, std::span<const std::int64_t> indices);
    [[noreturn]] void raise() const;

    MPI_Comm comm_;      /**< the private duplicate of the set-up's communicator */
    int self_;           /**< this rank */
    int nRanks_;         /**< ranks of comm_ */
    std::size_t nOwned_; /**< owned cells here */
    std::span<const LocalIndex> ghostCells_;      /**< the caller's ghost indices */
    std::span<const GhostOwner> owners_;          /**< the caller's owners */
    std::source_location where_;                  /**< the caller's call site */
    mpi::WaitPolicy policy_;                      /**< the environment's, read once */
    std::string error_;                           /**< the first bad input found here */
    std::optional<detail::GhostListCheck> check_; /**< the entries' check (bad ones left out) */
    std::vector<std::size_t> order_;              /**< entries grouped by owner (empty: as given) */
    std::vector<int> receiveRanks_;               /**< owners, ascending */
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

/** @brief Checks what this rank can check alone (detail::GhostListCheck): lengths, ghost
 * indices, owners' ranks; a ghost owned by this rank itself is a local copy. */
void GhostListSetUp::checkLocally()
{
    check_.emplace(
        nOwned_,
        ghostCells_,
        owners_,
        self_,
        nRanks_,
        true,
        [this](const std::string& message) { fail(message); }
    );
}

/** @brief Groups the good entries by owner rank (ascending), keeping the list's order within one
 * owner; a list already grouped (checkLocally found it so) is not copied. */
void GhostListSetUp::groupByOwner()
{
    // every entry good (no duplicate either) and the owners ascending: each owner's range found
    // by a binary search
    if (check_->grouped() && !check_->anyBad())
    {
        const auto rankAbove = [](int rank, const GhostOwner& owner)
        {
            return rank < owner.rank;
        };
        for (auto at = owners_.begin(); at != owners_.end();)
        {
            const int rank { at->rank };
            at = std::upper_bound(at, owners_.end(), rank, rankAbove);
            receiveRanks_.push_back(rank);
            receiveOffsets_.push_back(static_cast<std::size_t>(at - owners_.begin()));
        }
        return;
    }
    // some entries bad or the owners out of order: the good entries, sorted by owner
    order_.reserve(owners_.size());
    for (std::size_t k { 0 }; k < owners_.size(); ++k)
    {
        if (!check_->isBad(k))
        {
            order_.push_back(k);
        }
    }
    std::stable_sort(
        order_.begin(),
        order_.end(),
        [this](std::size_t a, std::size_t b) { return owners_[a].rank < owners_[b].rank; }
    );
    const std::size_t n { order_.size() };
    for (std::size_t j { 0 }; j < n; ++j)
    {
        const int rank { owners_[order_[j]].rank };
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

/**
 * @brief Collective: one answered exchange. Every owner learns which of its cells each requester
 * needs and answers how many of them it does not own; the agreement that closes the exchange
 * agrees the Communicator's context (@p mine: this rank's bid) and whether any rank found bad
 * input (only then do the ranks talk again, in raise()).
 */
ContextBid GhostListSetUp::askOwners(const ContextBid& mine)
{
    const auto entry = [this](std::size_t j)
    {
        return order_.empty() ? j : order_[j];
    };
    std::vector<mpi::SparseMessage> questions(receiveRanks_.size());
    for (std::size_t r { 0 }; r < receiveRanks_.size(); ++r)
    {
        mpi::SparseMessage& question { questions[r] };
        question.rank = receiveRanks_[r];
        question.data.resize(receiveOffsets_[r + 1] - receiveOffsets_[r]);
        for (std::size_t j { receiveOffsets_[r] }; j < receiveOffsets_[r + 1]; ++j)
        {
            question.data[j - receiveOffsets_[r]] = owners_[entry(j)].index;
        }
    }
    const mpi::AnsweredExchange answered { mpi::answeredExchange(
        comm_,
        std::move(questions),
        1,
        [this](const mpi::SparseMessage& question, std::span<std::int64_t> answer)
        { answer[0] = checkRequests(question.rank, question.data); },
        [this, &mine](std::span<const std::int64_t> answers)
        {
            // maxima over the ranks: 1 where a rank found bad input or was told of some
            std::uint64_t bad { error_.empty() ? 0U : 1U };
            for (const std::int64_t answer : answers)
            {
                bad |= answer != 0 ? 1U : 0U;
            }
            return mpi::AgreementBid { bad, mine.id, mine.window };
        },
        policy_,
        "GhostList",
        where_
    ) };
    if (answered.agreed[0] != 0)
    {
        raise();
    }
    for (const mpi::SparseMessage& question : answered.questions) // by requester, ascending
    {
        takeRequests(question.rank, question.data);
    }
    return { answered.agreed[1], answered.agreed[2] };
}

/**
 * @brief Owner side, as a question arrives: the number of @p indices that are not cells of this
 * rank (each named in the error).
 */
std::int64_t GhostListSetUp::checkRequests(int requester, std::span<const std::int64_t> indices)
{
    const std::uint64_t nOwned { nOwned_ };
    bool allOwned { true };
    for (const std::int64_t index : indices) // no branch per entry: a correct request is the rule
    {
        allOwned = allOwned & (static_cast<std::uint64_t>(index) < nOwned);
    }
    if (allOwned)
    {
        return 0;
    }
    std::int64_t bad { 0 };
    for (std::size_t i { 0 }; i < indices.size(); ++i)
    {
        if (static_cast<std::uint64_t>(indices[i]) >= nOwned_)
        {
            ++bad;
            fail(
                "rank " + std::to_string(requester) + " asks for owner index " +
                std::to_string(indices[i]) + " (its entry " + std::to_string(i) +
                " for this rank), but this rank owns " + std::to_string(nOwned_) + " cells (0.." +
                std::to_string(static_cast<std::int64_t>(nOwned_) - 1) + ")"
            );
        }
    }
    return bad;
}

/** @brief Owner side, once every rank agreed the input good: @p requester needs @p indices. */
void GhostListSetUp::takeRequests(int requester, std::span<const std::int64_t> indices)
{
    sendRanks_.push_back(requester);
    sendIndices_.insert(sendIndices_.end(), indices.begin(), indices.end()); // converts
    sendOffsets_.push_back(sendIndices_.size());
}

/**
 * @brief Collective, once the agreement found bad input somewhere: finds the lowest rank that
 * named it, which broadcasts its text, and throws an Error that names it on every rank.
 */
void GhostListSetUp::raise() const
{
    int failing { error_.empty() ? INT_MAX : self_ };
    FIELDSYNC_MPI_AT(MPI_Allreduce(MPI_IN_PLACE, &failing, 1, MPI_INT, MPI_MIN, comm_), where_);
    // every bad answer comes from an owner that named the bad index, so some rank has a text
    FIELDSYNC_CHECK_AT(
        failing != INT_MAX,
        "GhostList: the ranks agreed on bad input that no rank named (rank " +
            std::to_string(self_) + ")",
        where_
    );
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
    // an environment kept past its MPIInit: an Error here, not an abort in MPI's first call
    mpi::detail::requireMpiRunning("GhostList constructor", where);
    // the exchange runs on the duplicate cached on env's communicator; the agreement on errors
    // also agrees the Communicator's tag window on that duplicate (no MPI_Comm_dup)
    mpi::agreeOnSetUp(env.comm(), mpi::detail::SetUpCall::GhostList, where);
    GhostListSetUp setUp(
        mpi::detail::privateComm(env.comm(), where), env, nOwned, ghostCells, owners, where
    );
    setUp.checkLocally();
    setUp.groupByOwner();
    const ContextBid agreed { setUp.askOwners(contextBid(env.comm(), where)) };
    takeBid(env.comm(), agreed, true);
    context_ = std::make_shared<ExchangeContext>(grantContext(env, agreed, false, where));
    context_->policy = setUp.policy();
    sendMap_ = setUp.takeSendMap();
    receiveMap_ = setUp.takeReceiveMap();
}

Communicator GhostList::communicator(std::source_location where) &
{
    return handOn(sendMap_, receiveMap_, where);
}

Communicator GhostList::communicator(std::source_location where) &&
{
    // the list keeps empty maps (valid, of no rank), not moved-from ones
    return handOn(
        std::exchange(sendMap_, RankSimplexCommMap {}),
        std::exchange(receiveMap_, RankSimplexCommMap {}),
        where
    );
}

Communicator GhostList::handOn(
    RankSimplexCommMap send, RankSimplexCommMap receive, const std::source_location& where
)
{
    FIELDSYNC_CHECK_AT(
        !handedOn_,
        "GhostList::communicator: called twice; its communicator went to the first Communicator "
        "(make a Communicator from sendMap() and receiveMap() for another)",
        where
    );
    mpi::detail::requireMpiRunning("GhostList::communicator", where);
    handedOn_ = true;
    return Communicator::adopt(
        std::move(*context_), std::move(send), std::move(receive), CommitOptions {}, where
    );
}

} // namespace fieldsync::halo
