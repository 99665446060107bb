// SPDX-License-Identifier: MIT
#include "fieldsync/partition/haloBuilder.hpp"

#include "adjacencyScan.hpp"
#include "idMap.hpp"
#include "radixSort.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/partition/ownerDirectory.hpp"
#include "fieldsync/mpi/answeredExchange.hpp"
#include "fieldsync/mpi/detail/privateComm.hpp"
#include "fieldsync/mpi/reductions.hpp"
#include "fieldsync/mpi/sparseExchange.hpp"

#include <algorithm>
#include <array>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <string>

namespace fieldsync::partition
{

namespace
{
std::string cellText(GlobalIndex id)
{
    return "cell " + std::to_string(id);
}

/** @brief "once", "twice" or "n times". */
std::string timesText(std::size_t n)
{
    return n == 1 ? "once" : n == 2 ? "twice" : std::to_string(n) + " times";
}

/**
 * @brief The error text of an edge listed @p aTimes times by cell @p a (@p aNote after its name,
 * e.g. its rank) and @p bTimes times back by cell @p b (aTimes > 0, aTimes != bTimes), named from
 * the cell that lists it more often (the likely extra entry).
 */
std::string asymmetryText(
    GlobalIndex a, const std::string& aNote, std::size_t aTimes, GlobalIndex b, std::size_t bTimes
)
{
    std::string text { "HaloBuilder: asymmetric graph: " };
    if (bTimes == 0)
    {
        return text + cellText(a) + aNote + " lists neighbour " + std::to_string(b) + " but " +
               cellText(b) + " does not list " + std::to_string(a);
    }
    if (aTimes > bTimes)
    {
        return text + cellText(a) + aNote + " lists neighbour " + std::to_string(b) + " " +
               timesText(aTimes) + " but " + cellText(b) + " lists " + std::to_string(a) + " " +
               timesText(bTimes);
    }
    return text + cellText(b) + " lists neighbour " + std::to_string(a) + " " + timesText(bTimes) +
           " but " + cellText(a) + aNote + " lists " + std::to_string(b) + " " + timesText(aTimes);
}

/** @brief A bijection of the 64-bit integers that spreads every input bit over the output (the
 * finaliser of splitmix64). */
constexpr std::uint64_t mix64(std::uint64_t z) noexcept
{
    z = (z ^ (z >> 30U)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27U)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31U);
}

/**
 * @brief What one rank sees of its edges to the cells of one other rank: their number and two
 * sums of independent 64-bit hashes of the unordered pairs {my cell, its cell}. The two ranks
 * compute the same summary exactly when they list the same edges between them, each as many
 * times (up to a collision of both sums, about 2^-128 for a difference that is not made to
 * collide).
 */
struct EdgeSummary
{
    std::int64_t count { 0 };   /**< edges */
    std::uint64_t first { 0 };  /**< sum of the first hash */
    std::uint64_t second { 0 }; /**< sum of the second hash */

    /** @brief Adds the edge between cells @p a and @p b (of different ranks). */
    void add(GlobalIndex a, GlobalIndex b) noexcept
    {
        const auto low = static_cast<std::uint64_t>(std::min(a, b));
        const auto high = static_cast<std::uint64_t>(std::max(a, b));
        ++count;
        first += mix64(low * 0x9E3779B97F4A7C15ULL + high);
        second += mix64(high * 0xC2B2AE3D27D4EB4FULL + low + 0x165667B19E3779F9ULL);
    }

    /** @brief The summary as a message. */
    [[nodiscard]] std::vector<std::int64_t> message() const
    {
        return { count, static_cast<std::int64_t>(first), static_cast<std::int64_t>(second) };
    }

    /** @brief Whether @p message (another rank's summary) is this one. */
    [[nodiscard]] bool same(std::span<const std::int64_t> message) const noexcept
    {
        return message.size() == 3 && message[0] == count &&
               static_cast<std::uint64_t>(message[1]) == first &&
               static_cast<std::uint64_t>(message[2]) == second;
    }
};

std::vector<mpi::SparseMessage> toMessages(std::map<int, std::vector<std::int64_t>>& grouped)
{
    std::vector<mpi::SparseMessage> out;
    out.reserve(grouped.size());
    for (auto& [rank, data] : grouped)
    {
        out.push_back(mpi::SparseMessage { rank, std::move(data) });
    }
    return out;
}

/** @brief @p id as a sort key (ids are never negative). */
std::uint64_t idKey(GlobalIndex id)
{
    return static_cast<std::uint64_t>(id);
}

void sortUnique(std::vector<GlobalIndex>& ids)
{
    radixSort(ids, idKey);
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
}

/** @brief The local numbering of the ghosts and the receive map it implies. */
struct GhostNumbering
{
    std::vector<GlobalIndex> globalIds;      /**< owned, then ghost ids */
    std::vector<int> ghostOwners;            /**< owner of each ghost */
    std::vector<int> ghostLayers;            /**< layer of each ghost */
    std::vector<LocalIndex> slotLocal;       /**< ghost slot -> local index */
    std::vector<int> receiveRanks;           /**< owners, ascending */
    std::vector<std::size_t> receiveOffsets; /**< their ghost ranges */
    std::vector<LocalIndex> receiveIndices;  /**< local ghost indices */
};

/** @brief An adjacency entry that is a ghost: the owned cell, the entry's position, the ghost's
 * id and slot. */
struct GhostEntry
{
    LocalIndex cell;   /**< the owned cell (row) */
    LocalIndex slot;   /**< the ghost's slot */
    std::size_t entry; /**< its position in the adjacency */
    GlobalIndex id;    /**< the ghost */
};

/** @brief The ghosts found so far, by slot, and id -> slot (filled by indexSlots() before the
 * second layer: the first layer needs no look-up by id). */
struct Ghosts
{
    IdMap slotOf;                /**< ghost id -> slot, once indexSlots() ran */
    std::vector<GlobalIndex> id; /**< id of each slot */
    std::vector<int> owner;      /**< owner of each slot (-1: not known yet) */
    std::vector<int> layer;      /**< halo layer of each slot */

    /** @brief The slot of @p ghost, added with @p ownerRank and @p ghostLayer when new. */
    LocalIndex add(GlobalIndex ghost, int ownerRank, int ghostLayer)
    {
        const auto next = static_cast<LocalIndex>(id.size());
        const LocalIndex present { slotOf.insert(ghost, next) };
        if (present >= 0)
        {
            return present;
        }
        id.push_back(ghost);
        owner.push_back(ownerRank);
        layer.push_back(ghostLayer);
        return next;
    }

    /** @brief The first layer's slots (numbered without slotOf) go into slotOf. */
    void indexSlots()
    {
        slotOf.reserve(id.size());
        for (std::size_t slot { slotOf.size() }; slot < id.size(); ++slot)
        {
            slotOf.insert(id[slot], static_cast<LocalIndex>(slot));
        }
    }

    /** @brief The owner of ghost @p ghost (which must be known). */
    [[nodiscard]] int ownerOf(GlobalIndex ghost) const
    {
        return owner[static_cast<std::size_t>(slotOf.find(ghost))];
    }
};

/**
 * @brief One run of HaloBuilder::build: the state its phases share and the phases as named steps
 * (doc/partitioning.md, "How the distributed builder works"). Each phase that can find bad input
 * ends with raiseIfAnyFailed, so every rank stops together.
 */
class HaloBuild
{
public:
    HaloBuild(
        const CellGraph& owned,
        std::span<const int> neighbourOwners,
        bool ownersGiven,
        const mpi::MPIEnvironment& privateEnv,
        const std::source_location& where
    )
        : owned_(owned), neighbourOwners_(neighbourOwners), ownersGiven_(ownersGiven),
          comm_(privateEnv.comm()), self_(privateEnv.rank()), nRanks_(privateEnv.sizeRank()),
          where_(where), onRank_(" (rank " + std::to_string(self_) + ")")
    {
    }

    void numberOwnedCells();
    void findFirstLayer();
    void lookUpOwners();
    void exchangeFirstLayerEdges();
    void addLayer(int layer);
    [[nodiscard]] HaloLayout makeLayout();

private:
    void fail(std::string message);
    void raiseIfAnyFailed() const;
    template<typename Lookup>
    [[nodiscard]] std::uint64_t scanEntries(const Lookup& ownedIndex);
    void noteGhostEntries(std::size_t i);
    void numberGhostEntries();
    void findAsymmetricEdge();
    void checkLocalEdge(std::size_t i, std::size_t k, LocalIndex localB);
    void recordGivenOwner(LocalIndex cell, GlobalIndex b, int q, LocalIndex slot);
    void summariseEdges();
    void nameAsymmetricEdge();
    [[nodiscard]] std::int64_t checkEdgePairs(const mpi::SparseMessage& message);
    void answeredStep(
        std::vector<mpi::SparseMessage> questions,
        const std::function<std::int64_t(const mpi::SparseMessage&)>& answer,
        const std::string& what
    );
    [[nodiscard]] std::int64_t readAdjacency(
        const mpi::SparseMessage& reply, int layer, std::map<int, std::vector<std::int64_t>>& asks
    );
    [[nodiscard]] std::int64_t registerRequests(const mpi::SparseMessage& message, int layer);
    [[nodiscard]] GhostNumbering numberGhosts() const;
    [[nodiscard]] halo::RankSimplexCommMap sendMap();
    void patchGhostEntries(const std::vector<LocalIndex>& slotLocal);
    [[nodiscard]] std::vector<LocalIndex> interiorCells() const;

    const CellGraph& owned_;               /**< this rank's cells */
    std::span<const int> neighbourOwners_; /**< owner of each adjacency entry, if given */
    bool ownersGiven_;                     /**< whether neighbourOwners_ is used */
    MPI_Comm comm_;                        /**< the builder's private communicator */
    int self_;                             /**< this rank */
    int nRanks_;                           /**< ranks of comm_ */
    std::source_location where_;           /**< the caller's call site */
    std::string onRank_;                   /**< " (rank r)" for messages */
    std::string error_;                    /**< the first bad input found on this rank */
    IdMap ownedLocal_;                     /**< owned id -> local index */
    Ghosts ghosts_;                        /**< ghost cells, by slot */
    std::vector<LocalIndex> neighbours_;   /**< per adjacency entry: local index (ghosts: -1
                                                until makeLayout numbers them) */
    std::vector<GhostEntry> ghostEntries_; /**< the adjacency entries that are ghosts */
    std::vector<LocalIndex> boundary_;     /**< owned cells with a ghost neighbour, ascending */
    std::map<int, std::vector<GlobalIndex>> sendCells_;   /**< requester -> my cells it needs */
    std::map<int, std::vector<GlobalIndex>> newRequests_; /**< requester -> cells of last layer */
    std::map<int, EdgeSummary> summaries_; /**< owner of first-layer ghosts -> edges to it */
    std::size_t directoryEntries_ { 0 };   /**< owner-directory entries here */
};

void HaloBuild::fail(std::string message)
{
    if (error_.empty())
    {
        error_ = std::move(message);
    }
}

void HaloBuild::raiseIfAnyFailed() const
{
    mpi::raiseIfAnyFailed(comm_, error_, where_);
}

/** @brief Owned cells: global id -> local index; a cell listed twice is an error (raised by
 * lookUpOwners, the next step that talks to the other ranks). */
void HaloBuild::numberOwnedCells()
{
    const std::size_t nOwned { owned_.nCells() };
    if (nOwned >= static_cast<std::size_t>(std::numeric_limits<LocalIndex>::max()))
    {
        fail(
            "HaloBuilder: " + std::to_string(nOwned) + " owned cells exceed the local index range"
        );
    }
    else
    {
        std::int64_t repeat { -1 };
        ownedLocal_ = IdMap(owned_.globalIds(), repeat);
        if (repeat >= 0)
        {
            const GlobalIndex id { owned_.globalId(static_cast<std::size_t>(repeat)) };
            fail("HaloBuilder: " + cellText(id) + " is listed twice" + onRank_);
        }
    }
    if (ownersGiven_ && neighbourOwners_.size() != owned_.adjacency().size())
    {
        fail(
            "HaloBuilder: " + std::to_string(neighbourOwners_.size()) + " neighbour owners for " +
            std::to_string(owned_.adjacency().size()) + " neighbour entries" + onRank_
        );
    }
}

/** @brief Writes each owned cell's neighbours as local indices (a ghost's -1 until makeLayout
 * numbers the ghosts), collects the first halo layer (with its owners when the caller gave them)
 * and checks the symmetry of the edges inside this rank. */
void HaloBuild::findFirstLayer()
{
    if (!error_.empty())
    {
        return;
    }
    const std::uint64_t asymmetry { ownedLocal_.isTable() ? scanEntries(ownedLocal_.table())
                                                          : scanEntries(ownedLocal_) };
    numberGhostEntries();
    if (asymmetry != 0)
    {
        findAsymmetricEdge();
    }
}

/**
 * @brief The pass over the adjacency (lookUpAndScan, src/partition/adjacencyScan.hpp): each
 * entry is looked up once in @p ownedIndex (an IdTable or the IdMap) and written, -1 for the
 * entries not owned here; the boundary cells' ghost entries go to noteGhostEntries. Returns the
 * symmetry sum of the edges inside this rank (0 when every one is listed both ways).
 */
template<typename Lookup>
std::uint64_t HaloBuild::scanEntries(const Lookup& ownedIndex)
{
    return lookUpAndScan(
        ownedIndex,
        owned_.offsets(),
        owned_.adjacency(),
        neighbours_,
        boundary_,
        [this](std::size_t cell) { noteGhostEntries(cell); }
    );
}

/** @brief Boundary cell @p i: notes its entries not owned here (-1). */
void HaloBuild::noteGhostEntries(std::size_t i)
{
    const std::size_t last { owned_.offsets()[i + 1] };
    for (std::size_t e { owned_.offsets()[i] }; e < last; ++e)
    {
        if (neighbours_[e] < 0)
        {
            ghostEntries_.push_back({ static_cast<LocalIndex>(i), -1, e, owned_.adjacency()[e] });
        }
    }
}

/**
 * @brief Gives each ghost entry its ghost's slot, the ghosts in the order of their ids (the ghost
 * entries sorted by id: no look-up by id) and, with owners given, checks and records the owner.
 * The owners of the ghost entries, scattered through an array the scan did not read, are copied
 * first in a loop of independent loads (many cache misses in flight at once).
 */
void HaloBuild::numberGhostEntries()
{
    struct Found
    {
        GlobalIndex id; /**< the ghost */
        int owner;      /**< its owner as given (or -1) */
        LocalIndex k;   /**< the ghost entry */
    };
    std::vector<Found> found(ghostEntries_.size());
    for (std::size_t k { 0 }; k < found.size(); ++k)
    {
        const GhostEntry& entry { ghostEntries_[k] };
        found[k] = { entry.id,
                     ownersGiven_ ? neighbourOwners_[entry.entry] : -1,
                     static_cast<LocalIndex>(k) };
    }
    radixSort(found, [](const Found& f) { return idKey(f.id); });
    for (std::size_t k { 0 }; k < found.size(); ++k)
    {
        if (k == 0 || found[k].id != found[k - 1].id)
        {
            ghosts_.id.push_back(found[k].id);
            ghosts_.owner.push_back(-1);
            ghosts_.layer.push_back(1);
        }
        const auto slot = static_cast<LocalIndex>(ghosts_.id.size() - 1);
        GhostEntry& entry { ghostEntries_[static_cast<std::size_t>(found[k].k)] };
        entry.slot = slot;
        if (ownersGiven_)
        {
            recordGivenOwner(entry.cell, found[k].id, found[k].owner, slot);
        }
    }
}

/** @brief Searches every local edge for its reverse, listed as many times; the first edge that
 * is not is the error. Runs only when the symmetry sum says there is one. */
void HaloBuild::findAsymmetricEdge()
{
    for (std::size_t i { 0 }; i < owned_.nCells() && error_.empty(); ++i)
    {
        const LocalIndex* code { neighbours_.data() + owned_.offsets()[i] };
        const std::size_t degree { owned_.neighbours(i).size() };
        for (std::size_t k { 0 }; k < degree && error_.empty(); ++k)
        {
            if (code[k] >= 0)
            {
                checkLocalEdge(i, k, code[k]);
            }
        }
    }
    if (error_.empty())
    {
        fail(
            "HaloBuilder: internal error: the symmetry sum of the edges inside this rank is not "
            "zero, but every edge is listed both ways" +
            onRank_
        );
    }
}

/** @brief Owned cell i's entry @p k is owned cell @p localB: b must list i as many times as i
 * lists b. */
void HaloBuild::checkLocalEdge(std::size_t i, std::size_t k, LocalIndex localB)
{
    const GlobalIndex a { owned_.globalId(i) };
    const auto row = owned_.neighbours(i);
    const GlobalIndex b { row[k] };
    const auto back = owned_.neighbours(static_cast<std::size_t>(localB));
    const auto times = static_cast<std::size_t>(std::count(row.begin(), row.end(), b));
    const auto listed = static_cast<std::size_t>(std::count(back.begin(), back.end(), a));
    if (listed != times)
    {
        fail(asymmetryText(a, "", times, b, listed) + onRank_);
    }
}

/** @brief The caller's owner @p q of ghost @p b (slot @p slot), a neighbour of owned cell
 * @p cell: in range, not this rank, and the same for every entry of b. */
void HaloBuild::recordGivenOwner(LocalIndex cell, GlobalIndex b, int q, LocalIndex slot)
{
    if (q < 0 || q >= nRanks_ || q == self_)
    {
        fail(
            "HaloBuilder: " + cellText(owned_.globalId(static_cast<std::size_t>(cell))) +
            ": neighbour " + std::to_string(b) + " has owner " + std::to_string(q) + ", but " +
            (q == self_ ? "this rank does not own it"
                        : "ranks are 0.." + std::to_string(nRanks_ - 1)) +
            onRank_
        );
        return;
    }
    int& owner = ghosts_.owner[static_cast<std::size_t>(slot)];
    if (owner < 0)
    {
        owner = q;
    }
    else if (owner != q)
    {
        fail(
            "HaloBuilder: " + cellText(b) + " is given two owners, " + std::to_string(owner) +
            " and " + std::to_string(q) + onRank_
        );
    }
}

/** @brief Without owners from the caller, asks an OwnerDirectory for the first layer's owners
 * (a neighbour no rank owns is an error). The errors found from here on travel with the
 * agreement that closes the exchange of the edges, so no collective step is spent on them. */
void HaloBuild::lookUpOwners()
{
    if (ownersGiven_)
    {
        return;
    }
    raiseIfAnyFailed(); // the directory needs every rank's cells numbered
    const OwnerDirectory directory(comm_, owned_.globalIds(), where_);
    directoryEntries_ = directory.localEntries();
    ghosts_.owner = directory.owners(ghosts_.id, where_);
    for (const GhostEntry& entry : ghostEntries_)
    {
        const auto slot = static_cast<std::size_t>(entry.slot);
        if (ghosts_.owner[slot] < 0)
        {
            fail(
                "HaloBuilder: " + cellText(owned_.globalId(static_cast<std::size_t>(entry.cell))) +
                " has neighbour " + std::to_string(ghosts_.id[slot]) + " that no rank owns" +
                onRank_
            );
        }
    }
}

/**
 * @brief Per owner of first-layer ghosts, the summary of this rank's edges to it
 * (EdgeSummary) and the owned cells next to it, ascending by id: by symmetry, the cells that
 * owner needs from this rank (checked by the exchange of the summaries).
 */
void HaloBuild::summariseEdges()
{
    // each ghost slot's owner's summary and cells (ghosts are by id: owners come in runs)
    std::vector<EdgeSummary*> summaryOf(ghosts_.id.size());
    std::vector<std::vector<GlobalIndex>*> cellsOf(ghosts_.id.size());
    for (std::size_t slot { 0 }; slot < ghosts_.id.size(); ++slot)
    {
        const int owner { ghosts_.owner[slot] };
        if (slot == 0 || owner != ghosts_.owner[slot - 1])
        {
            summaryOf[slot] = &summaries_[owner];
            cellsOf[slot] = &sendCells_[owner];
        }
        else
        {
            summaryOf[slot] = summaryOf[slot - 1];
            cellsOf[slot] = cellsOf[slot - 1];
        }
    }
    // the ghost entries are by owned cell: a cell's entries are next to each other
    for (const GhostEntry& entry : ghostEntries_)
    {
        const auto slot = static_cast<std::size_t>(entry.slot);
        const GlobalIndex cell { owned_.globalId(static_cast<std::size_t>(entry.cell)) };
        summaryOf[slot]->add(cell, ghosts_.id[slot]);
        std::vector<GlobalIndex>& cells { *cellsOf[slot] };
        if (cells.empty() || cells.back() != cell)
        {
            cells.push_back(cell);
        }
    }
    for (auto& [owner, cells] : sendCells_)
    {
        sortUnique(cells); // one pass when the owned ids ascend
    }
}

/**
 * @brief Who sends to whom, and the symmetry of the edges between ranks: each rank sends each
 * owner of its ghosts the summary of its edges to it (three integers), and the owner answers
 * whether its own summary of the edges the other way is the same. The agreement that closes the
 * exchange says whether any rank found bad input before, or any summaries differ; only then do
 * the ranks exchange the edges themselves to name the bad one (nameAsymmetricEdge). A rank that
 * has found bad input already (its owners may be out of range) sends nothing, answers, and says
 * so in the agreement.
 */
void HaloBuild::exchangeFirstLayerEdges()
{
    std::vector<mpi::SparseMessage> questions;
    if (error_.empty())
    {
        summariseEdges();
        questions.reserve(summaries_.size());
        for (const auto& [owner, summary] : summaries_)
        {
            questions.push_back({ owner, summary.message() });
        }
    }
    const mpi::AnsweredExchange answered { mpi::answeredExchange(
        comm_,
        std::move(questions),
        1,
        [this](const mpi::SparseMessage& message, std::span<std::int64_t> answer)
        {
            const auto mine = summaries_.find(message.rank);
            const bool same { mine == summaries_.end() ? message.data.empty()
                                                       : mine->second.same(message.data) };
            answer[0] = (same || !error_.empty()) ? 0 : 1;
        },
        [this](std::span<const std::int64_t> answers)
        {
            std::uint64_t differ { 0 };
            for (const std::int64_t answer : answers)
            {
                differ |= answer != 0 ? 1U : 0U;
            }
            return mpi::AgreementBid { error_.empty() ? 0U : 1U, differ, 0 };
        },
        mpi::WaitPolicy::fromEnvironment(),
        "HaloBuilder edges",
        where_
    ) };
    if (answered.agreed[0] != 0)
    {
        raiseIfAnyFailed();
    }
    if (answered.agreed[1] != 0)
    {
        nameAsymmetricEdge();
    }
    newRequests_ = sendCells_;
}

/**
 * @brief After summaries that differ (on every rank): sends each owner the pairs (ghost, my cell
 * next to it), each owner checks them against its cells' lists, the rank that finds a bad edge
 * names it, and every rank throws.
 */
void HaloBuild::nameAsymmetricEdge()
{
    std::map<int, std::vector<std::int64_t>> edges; // owner -> (ghost, my cell) pairs
    for (const GhostEntry& entry : ghostEntries_)
    {
        const auto slot = static_cast<std::size_t>(entry.slot);
        auto& message = edges[ghosts_.owner[slot]];
        message.push_back(ghosts_.id[slot]);
        message.push_back(owned_.globalId(static_cast<std::size_t>(entry.cell)));
    }
    (void)mpi::answeredExchange(
        comm_,
        toMessages(edges),
        1,
        [this](const mpi::SparseMessage& message, std::span<std::int64_t> answer)
        { answer[0] = checkEdgePairs(message); },
        [this](std::span<const std::int64_t>) {
            return mpi::AgreementBid { error_.empty() ? 0U : 1U, 0, 0 };
        },
        mpi::WaitPolicy::fromEnvironment(),
        "HaloBuilder edges (naming)",
        where_
    );
    raiseIfAnyFailed();
    throw Error(
        "HaloBuilder: internal error: the summaries of the edges between two ranks differ, but "
        "every edge is listed both ways" +
            onRank_,
        where_
    );
}

/** @brief Owner side of nameAsymmetricEdge: each cell asked for must be owned here and list the
 * asker's cell as many times as the asker lists it; returns the number of bad edges (each named
 * in the error). */
std::int64_t HaloBuild::checkEdgePairs(const mpi::SparseMessage& message)
{
    std::vector<std::pair<GlobalIndex, GlobalIndex>> pairs; // (my cell, its cell), ordered
    for (std::size_t k { 0 }; k + 1 < message.data.size(); k += 2)
    {
        pairs.emplace_back(message.data[k], message.data[k + 1]);
    }
    std::sort(pairs.begin(), pairs.end());
    std::int64_t bad { 0 };
    for (std::size_t k { 0 }; k < pairs.size();)
    {
        const auto [b, a] = pairs[k];
        std::size_t times { 0 };
        for (; k < pairs.size() && pairs[k] == std::pair { b, a }; ++k)
        {
            ++times;
        }
        const LocalIndex local { ownedLocal_.find(b) };
        if (local < 0)
        {
            ++bad;
            fail(
                "HaloBuilder: rank " + std::to_string(message.rank) + " says its " + cellText(a) +
                " has neighbour " + std::to_string(b) + ", owned by this rank, but no rank owns " +
                cellText(b) + onRank_
            );
            continue;
        }
        const auto back = owned_.neighbours(static_cast<std::size_t>(local));
        const auto listed = static_cast<std::size_t>(std::count(back.begin(), back.end(), a));
        if (listed != times)
        {
            ++bad;
            fail(
                asymmetryText(a, " (rank " + std::to_string(message.rank) + ")", times, b, listed) +
                onRank_
            );
        }
    }
    return bad;
}

/**
 * @brief Halo layer @p layer (2, 3, ...) in two answered exchanges: the owners of the last layer
 * send each requester those cells' neighbours with their owners (an owner knows them all: each
 * neighbour of an owned cell is owned or a first-layer ghost), and the requester answers whether
 * it found a bad one; then the owners of the new ghosts learn who needs which of them.
 */
void HaloBuild::addLayer(int layer)
{
    ghosts_.indexSlots();
    std::vector<mpi::SparseMessage> replies;
    for (const auto& [rank, cells] : newRequests_)
    {
        mpi::SparseMessage& reply { replies.emplace_back(mpi::SparseMessage { rank, {} }) };
        for (const GlobalIndex b : cells)
        {
            const auto nbrs = owned_.neighbours(static_cast<std::size_t>(ownedLocal_.find(b)));
            reply.data.push_back(b);
            reply.data.push_back(static_cast<std::int64_t>(nbrs.size()));
            for (const GlobalIndex n : nbrs)
            {
                reply.data.push_back(n);
                reply.data.push_back(ownedLocal_.contains(n) ? self_ : ghosts_.ownerOf(n));
            }
        }
    }
    std::map<int, std::vector<std::int64_t>> asks; // new ghosts by owner
    answeredStep(
        std::move(replies),
        [&](const mpi::SparseMessage& reply) { return readAdjacency(reply, layer, asks); },
        "HaloBuilder layer " + std::to_string(layer)
    );
    newRequests_.clear();
    answeredStep(
        toMessages(asks),
        [&](const mpi::SparseMessage& message) { return registerRequests(message, layer); },
        "HaloBuilder layer " + std::to_string(layer) + " requests"
    );
}

/** @brief One answered exchange of @p questions, each answered with the number of bad entries
 * @p answer finds in it (and names); the closing agreement says whether any rank found any. */
void HaloBuild::answeredStep(
    std::vector<mpi::SparseMessage> questions,
    const std::function<std::int64_t(const mpi::SparseMessage&)>& answer,
    const std::string& what
)
{
    const mpi::AnsweredExchange answered { mpi::answeredExchange(
        comm_,
        std::move(questions),
        1,
        [&](const mpi::SparseMessage& question, std::span<std::int64_t> bad)
        { bad[0] = answer(question); },
        [this](std::span<const std::int64_t> answers)
        {
            const bool bad {
                !error_.empty() ||
                std::any_of(answers.begin(), answers.end(), [](std::int64_t n) { return n != 0; })
            };
            return mpi::AgreementBid { bad ? 1U : 0U, 0, 0 };
        },
        mpi::WaitPolicy::fromEnvironment(),
        what,
        where_
    ) };
    if (answered.agreed[0] != 0)
    {
        raiseIfAnyFailed();
    }
}

/** @brief Requester side: owner @p reply.rank's (id, degree, (neighbour, owner)...) of the cells
 * of the last layer; each neighbour not yet known becomes a ghost of @p layer, asked of its owner
 * in @p asks. Returns the number of bad owners named (each in the error). */
std::int64_t HaloBuild::readAdjacency(
    const mpi::SparseMessage& reply, int layer, std::map<int, std::vector<std::int64_t>>& asks
)
{
    std::int64_t bad { 0 };
    for (std::size_t k { 0 }; k + 1 < reply.data.size();)
    {
        const auto degree = static_cast<std::size_t>(reply.data[k + 1]);
        k += 2;
        for (std::size_t e { 0 }; e < degree && k + 1 < reply.data.size(); ++e, k += 2)
        {
            const GlobalIndex n { reply.data[k] };
            const auto owner = static_cast<int>(reply.data[k + 1]);
            if (ownedLocal_.contains(n) || ghosts_.slotOf.contains(n))
            {
                continue;
            }
            if (owner == self_ || owner < 0 || owner >= nRanks_)
            {
                ++bad;
                fail(
                    "HaloBuilder: rank " + std::to_string(reply.rank) + " names owner " +
                    std::to_string(owner) + " for " + cellText(n) +
                    ", which this rank does not own" + onRank_
                );
                continue;
            }
            ghosts_.add(n, owner, layer);
            asks[owner].push_back(n);
        }
    }
    return bad;
}

/** @brief Owner side: rank @p message.rank needs these cells (its halo layer @p layer); returns
 * the number of them not owned here (each in the error). */
std::int64_t HaloBuild::registerRequests(const mpi::SparseMessage& message, int layer)
{
    std::int64_t bad { 0 };
    std::vector<GlobalIndex>& cells { newRequests_[message.rank] };
    for (const std::int64_t b : message.data)
    {
        if (!ownedLocal_.contains(b))
        {
            ++bad;
            fail(
                "HaloBuilder: rank " + std::to_string(message.rank) + " asks for " + cellText(b) +
                " (halo layer " + std::to_string(layer) + "), which this rank does not own" +
                onRank_
            );
            continue;
        }
        cells.push_back(b);
    }
    sortUnique(cells);
    auto& all = sendCells_[message.rank];
    all.insert(all.end(), cells.begin(), cells.end());
    return bad;
}

/** @brief Local numbering (owned cells, then ghosts by owner and global id) and both maps. */
HaloLayout HaloBuild::makeLayout()
{
    GhostNumbering ghosts { numberGhosts() };
    halo::RankSimplexCommMap send { sendMap() };
    patchGhostEntries(ghosts.slotLocal);
    std::vector<LocalIndex> interior { interiorCells() }; // before boundary_ moves
    return HaloLayout(
        owned_.nCells(),
        std::move(ghosts.globalIds),
        std::move(ghosts.ghostOwners),
        std::move(ghosts.ghostLayers),
        std::vector<std::size_t>(owned_.offsets().begin(), owned_.offsets().end()),
        std::move(neighbours_),
        std::move(send),
        halo::RankSimplexCommMap(
            nRanks_,
            std::move(ghosts.receiveRanks),
            std::move(ghosts.receiveOffsets),
            std::move(ghosts.receiveIndices),
            where_
        ),
        directoryEntries_,
        std::move(interior),
        std::move(boundary_)
    );
}

/** @brief Numbers the ghosts after the owned cells, grouped by owner, by global id within one. */
GhostNumbering HaloBuild::numberGhosts() const
{
    const std::size_t nOwned { owned_.nCells() };
    struct Ghost
    {
        int owner;
        GlobalIndex id;
        LocalIndex slot;
    };
    std::vector<Ghost> ghosts(ghosts_.id.size());
    for (std::size_t slot { 0 }; slot < ghosts.size(); ++slot)
    {
        ghosts[slot] = { ghosts_.owner[slot], ghosts_.id[slot], static_cast<LocalIndex>(slot) };
    }
    // by owner, then by id: sorted by id first (the first layer already is), then stably by owner
    radixSort(ghosts, [](const Ghost& g) { return idKey(g.id); });
    radixSort(ghosts, [](const Ghost& g) { return static_cast<std::uint64_t>(g.owner); });
    FIELDSYNC_CHECK_AT(
        nOwned + ghosts.size() < static_cast<std::size_t>(std::numeric_limits<LocalIndex>::max()),
        "HaloBuilder: owned plus ghost cells exceed the local index range" + onRank_,
        where_
    );
    GhostNumbering result;
    result.globalIds.reserve(nOwned + ghosts.size());
    result.globalIds.assign(owned_.globalIds().begin(), owned_.globalIds().end());
    result.ghostOwners.reserve(ghosts.size());
    result.ghostLayers.reserve(ghosts.size());
    result.receiveIndices.reserve(ghosts.size());
    result.slotLocal.resize(ghosts.size());
    for (std::size_t k { 0 }; k < ghosts.size(); ++k)
    {
        const auto [owner, id, slot] = ghosts[k];
        const auto local = static_cast<LocalIndex>(nOwned + k);
        if (result.receiveRanks.empty() || result.receiveRanks.back() != owner)
        {
            result.receiveRanks.push_back(owner);
            result.receiveOffsets.push_back(k);
        }
        result.receiveIndices.push_back(local);
        result.globalIds.push_back(id);
        result.ghostOwners.push_back(owner);
        result.ghostLayers.push_back(ghosts_.layer[static_cast<std::size_t>(slot)]);
        result.slotLocal[static_cast<std::size_t>(slot)] = local;
    }
    result.receiveOffsets.push_back(ghosts.size());
    return result;
}

/** @brief The send map: for each requester, the owned cells it needs, by global id. */
halo::RankSimplexCommMap HaloBuild::sendMap()
{
    std::vector<int> sendRanks;
    std::vector<std::size_t> sendOffsets { 0 };
    std::vector<LocalIndex> sendIndices;
    for (auto& [rank, cells] : sendCells_)
    {
        sortUnique(cells);
        sendRanks.push_back(rank);
        for (const GlobalIndex b : cells)
        {
            sendIndices.push_back(ownedLocal_.find(b));
        }
        sendOffsets.push_back(sendIndices.size());
    }
    return halo::RankSimplexCommMap(
        nRanks_, std::move(sendRanks), std::move(sendOffsets), std::move(sendIndices), where_
    );
}

/** @brief The ghost entries of the local adjacency get the ghosts' local indices. */
void HaloBuild::patchGhostEntries(const std::vector<LocalIndex>& slotLocal)
{
    for (const GhostEntry& entry : ghostEntries_)
    {
        neighbours_[entry.entry] = slotLocal[static_cast<std::size_t>(entry.slot)];
    }
}

/** @brief The owned cells without a ghost neighbour (those between the boundary cells),
 * ascending. */
std::vector<LocalIndex> HaloBuild::interiorCells() const
{
    std::vector<LocalIndex> interior(owned_.nCells() - boundary_.size());
    auto next = interior.begin();
    LocalIndex from { 0 };
    for (const LocalIndex cell : boundary_)
    {
        const std::ptrdiff_t run { cell - from };
        std::iota(next, next + run, from);
        next += run;
        from = cell + 1;
    }
    std::iota(next, interior.end(), from);
    return interior;
}

} // namespace

HaloBuilder::HaloBuilder(mpi::MPIEnvironment env, int depth, std::source_location where)
    : env_(env), depth_(depth)
{
    mpi::agreeOnSetUp(env.comm(), mpi::detail::SetUpCall::HaloBuilder, where);
    private_ = mpi::detail::privateEnvironment(env, where);
    // every rank must build the same number of layers (each layer is a collective step): the
    // largest depth and the largest negated depth give every rank the range
    std::array<int, 2> range { depth_, -depth_ };
    mpi::allReduce(std::span<int>(range), mpi::ReduceOp::Max, private_.comm(), {}, where);
    FIELDSYNC_CHECK_AT(
        depth_ >= 1, "HaloBuilder: halo depth must be >= 1, got " + std::to_string(depth_), where
    );
    FIELDSYNC_CHECK_AT(
        -range[1] >= 1,
        "HaloBuilder: halo depth must be >= 1, got " + std::to_string(-range[1]) +
            " on another rank",
        where
    );
    FIELDSYNC_CHECK_AT(
        range[0] == -range[1],
        "HaloBuilder: the ranks gave different halo depths, from " + std::to_string(-range[1]) +
            " to " + std::to_string(range[0]) + "; this rank gave " + std::to_string(depth_),
        where
    );
}

HaloLayout HaloBuilder::build(const CellGraph& owned, std::source_location where) const
{
    return buildImpl(owned, {}, false, where);
}

HaloLayout HaloBuilder::build(
    const CellGraph& owned, std::span<const int> neighbourOwners, std::source_location where
) const
{
    return buildImpl(owned, neighbourOwners, true, where);
}

HaloLayout HaloBuilder::buildImpl(
    const CellGraph& owned,
    std::span<const int> neighbourOwners,
    bool ownersGiven,
    const std::source_location& where
) const
{
    HaloBuild build(owned, neighbourOwners, ownersGiven, private_, where);
    build.numberOwnedCells();
    build.findFirstLayer();
    build.lookUpOwners();
    build.exchangeFirstLayerEdges();
    for (int layer { 2 }; layer <= depth_; ++layer)
    {
        build.addLayer(layer);
    }
    return build.makeLayout();
}

} // namespace fieldsync::partition
