// SPDX-License-Identifier: MIT
#include "fieldsync/partition/haloBuilder.hpp"

#include "idMap.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/partition/ownerDirectory.hpp"
#include "fieldsync/mpi/sparseExchange.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <string>

namespace fieldsync::partition
{

namespace
{
constexpr int edgeTag { 7101 };
constexpr int adjacencyTagBase { 7200 }; // + layer
constexpr int layerTagBase { 7300 };     // + layer

std::string cellText(GlobalIndex id)
{
    return "cell " + std::to_string(id);
}

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

/** @brief A 64-bit hash of the directed edge @p from -> @p to (local indices). */
std::uint64_t edgeHash(std::size_t from, std::size_t to)
{
    std::uint64_t x { (static_cast<std::uint64_t>(from) << 32U) ^ static_cast<std::uint64_t>(to) };
    x ^= x >> 33U;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33U;
    x *= 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33U);
}

void sortUnique(std::vector<GlobalIndex>& ids)
{
    std::sort(ids.begin(), ids.end());
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

/** @brief An adjacency entry that is a ghost: the owned cell and the entry's position. */
struct GhostEntry
{
    std::size_t cell;  /**< the owned cell (row) */
    std::size_t entry; /**< its position in the adjacency */
};

/** @brief The ghosts found so far, by slot (the order found), and id -> slot. */
struct Ghosts
{
    IdMap slotOf;                /**< ghost id -> slot */
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
    void findAsymmetricEdge();
    void checkLocalEdge(GlobalIndex a, GlobalIndex b, LocalIndex localB);
    void recordGivenOwner(std::size_t i, std::size_t k, GlobalIndex b, LocalIndex slot);
    void checkEdgeRequests(const mpi::SparseMessage& message);
    [[nodiscard]] std::vector<std::vector<std::int64_t>> adjacencyReplies() const;
    void sendAdjacency(
        int layer,
        const std::vector<std::vector<std::int64_t>>& replies,
        std::vector<MPI_Request>& requests
    ) const;
    [[nodiscard]] std::map<int, std::vector<std::int64_t>> receiveAdjacency(int layer);
    void readAdjacencyReply(
        int q,
        const std::vector<std::int64_t>& reply,
        int layer,
        std::map<int, std::vector<std::int64_t>>& asks
    );
    void registerLayerRequests(int layer, std::map<int, std::vector<std::int64_t>>& asks);
    [[nodiscard]] GhostNumbering numberGhosts() const;
    [[nodiscard]] halo::RankSimplexCommMap sendMap();
    [[nodiscard]] std::vector<LocalIndex> ownedNeighbours(const std::vector<LocalIndex>& slotLocal
    ) const;

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
    std::vector<LocalIndex> entryCode_;    /**< per adjacency entry: local index, or -(slot + 1) */
    std::vector<GhostEntry> ghostEntries_; /**< the adjacency entries that are ghosts */
    std::map<int, std::vector<GlobalIndex>> sendCells_;   /**< requester -> my cells it needs */
    std::map<int, std::vector<GlobalIndex>> newRequests_; /**< requester -> cells of last layer */
    std::vector<GlobalIndex> lastLayer_;                  /**< ghosts of the last layer */
    std::size_t directoryEntries_ { 0 };                  /**< owner-directory entries here */
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

/** @brief Owned cells: global id -> local index; a cell listed twice is an error. */
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
    raiseIfAnyFailed();
}

/** @brief Checks the symmetry of edges inside this rank and collects the first halo layer (with
 * its owners when the caller gave them). */
void HaloBuild::findFirstLayer()
{
    entryCode_.resize(owned_.adjacency().size());
    // symmetry inside this rank: a hash of the pair {i, j} summed over the local edges i -> j
    // with i < j, and over those with i > j, gives the same sum when every edge is listed both
    // ways; only when the sums differ is each edge searched for in the other cell's list (to
    // name the cell)
    std::uint64_t upward { 0 };   // edges i -> j with i < j
    std::uint64_t downward { 0 }; // edges i -> j with i > j, hashed as j -> i
    for (std::size_t i { 0 }; i < owned_.nCells(); ++i)
    {
        const auto nbrs = owned_.neighbours(i);
        LocalIndex* code { entryCode_.data() + owned_.offsets()[i] };
        for (std::size_t k { 0 }; k < nbrs.size(); ++k)
        {
            const GlobalIndex b { nbrs[k] };
            const LocalIndex local { ownedLocal_.find(b) };
            if (local >= 0)
            {
                const auto j = static_cast<std::size_t>(local);
                (i < j ? upward : downward) += edgeHash(std::min(i, j), std::max(i, j));
                code[k] = local;
                continue;
            }
            const LocalIndex slot { ghosts_.add(b, -1, 1) };
            code[k] = -(slot + 1);
            ghostEntries_.push_back({ i, owned_.offsets()[i] + k });
            if (ownersGiven_)
            {
                recordGivenOwner(i, k, b, slot);
            }
        }
    }
    if (upward != downward)
    {
        findAsymmetricEdge();
    }
}

/** @brief Searches every local edge for its reverse; the first missing one is the error. */
void HaloBuild::findAsymmetricEdge()
{
    for (std::size_t i { 0 }; i < owned_.nCells() && error_.empty(); ++i)
    {
        const LocalIndex* code { entryCode_.data() + owned_.offsets()[i] };
        const auto nbrs = owned_.neighbours(i);
        for (std::size_t k { 0 }; k < nbrs.size(); ++k)
        {
            if (code[k] >= 0)
            {
                checkLocalEdge(owned_.globalId(i), nbrs[k], code[k]);
            }
        }
    }
}

/** @brief Owned cell @p a lists owned cell @p b (local index @p localB): b must list a. */
void HaloBuild::checkLocalEdge(GlobalIndex a, GlobalIndex b, LocalIndex localB)
{
    const auto back = owned_.neighbours(static_cast<std::size_t>(localB));
    if (std::find(back.begin(), back.end(), a) == back.end())
    {
        fail(
            "HaloBuilder: asymmetric graph: " + cellText(a) + " lists neighbour " +
            std::to_string(b) + " but " + cellText(b) + " does not list " + std::to_string(a) +
            onRank_
        );
    }
}

/** @brief The caller's owner of neighbour @p k of cell @p i (ghost @p b): in range, not this
 * rank, and the same for every entry of b. */
void HaloBuild::recordGivenOwner(std::size_t i, std::size_t k, GlobalIndex b, LocalIndex slot)
{
    const int q { neighbourOwners_[owned_.offsets()[i] + k] };
    if (q < 0 || q >= nRanks_ || q == self_)
    {
        fail(
            "HaloBuilder: " + cellText(owned_.globalId(i)) + ": neighbour " + std::to_string(b) +
            " has owner " + std::to_string(q) + ", but " +
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

/** @brief Without owners from the caller, asks an OwnerDirectory for the first layer's owners;
 * a neighbour no rank owns is an error. */
void HaloBuild::lookUpOwners()
{
    if (!ownersGiven_)
    {
        const OwnerDirectory directory(comm_, owned_.globalIds(), where_);
        directoryEntries_ = directory.localEntries();
        ghosts_.owner = directory.owners(ghosts_.id, where_);
        for (const GhostEntry& entry : ghostEntries_)
        {
            const auto slot = static_cast<std::size_t>(-entryCode_[entry.entry] - 1);
            if (ghosts_.owner[slot] < 0)
            {
                fail(
                    "HaloBuilder: " + cellText(owned_.globalId(entry.cell)) + " has neighbour " +
                    std::to_string(ghosts_.id[slot]) + " that no rank owns" + onRank_
                );
            }
        }
    }
    raiseIfAnyFailed();
}

/** @brief Sends each owner the pairs (ghost, my cell that needs it); as an owner, checks what
 * arrives and records who needs which of its cells. */
void HaloBuild::exchangeFirstLayerEdges()
{
    // owner -> (ghost, my cell) pairs; each ghost slot knows its owner's message
    std::map<int, std::vector<std::int64_t>> edges;
    std::vector<std::vector<std::int64_t>*> messageOf(ghosts_.id.size());
    for (std::size_t slot { 0 }; slot < ghosts_.id.size(); ++slot)
    {
        messageOf[slot] = &edges[ghosts_.owner[slot]];
    }
    for (const GhostEntry& entry : ghostEntries_)
    {
        const auto slot = static_cast<std::size_t>(-entryCode_[entry.entry] - 1);
        auto& message = *messageOf[slot];
        message.push_back(ghosts_.id[slot]);
        message.push_back(owned_.globalId(entry.cell));
    }
    for (const mpi::SparseMessage& message :
         mpi::sparseExchange(comm_, edgeTag, toMessages(edges), "HaloBuilder edges", where_))
    {
        checkEdgeRequests(message);
    }
    raiseIfAnyFailed();
    for (const auto& [rank, cells] : newRequests_)
    {
        auto& all = sendCells_[rank];
        all.insert(all.end(), cells.begin(), cells.end());
    }
    lastLayer_ = ghosts_.id;
}

/** @brief Owner side of layer 1: each requested cell must be owned here and the edge symmetric. */
void HaloBuild::checkEdgeRequests(const mpi::SparseMessage& message)
{
    auto& cells = newRequests_[message.rank];
    for (std::size_t k { 0 }; k + 1 < message.data.size(); k += 2)
    {
        const GlobalIndex b { message.data[k] };
        const GlobalIndex a { message.data[k + 1] };
        const LocalIndex local { ownedLocal_.find(b) };
        if (local < 0)
        {
            fail(
                "HaloBuilder: rank " + std::to_string(message.rank) + " says its " + cellText(a) +
                " has neighbour " + std::to_string(b) + ", owned by this rank, but no rank owns " +
                cellText(b) + onRank_
            );
            continue;
        }
        const auto back = owned_.neighbours(static_cast<std::size_t>(local));
        if (std::find(back.begin(), back.end(), a) == back.end())
        {
            fail(
                "HaloBuilder: asymmetric graph: " + cellText(a) + " (rank " +
                std::to_string(message.rank) + ") lists neighbour " + std::to_string(b) + " but " +
                cellText(b) + " does not list " + std::to_string(a) + onRank_
            );
        }
        cells.push_back(b);
    }
    sortUnique(cells);
}

/** @brief Halo layer @p layer (2, 3, ...): the owners of the last layer send its adjacency with
 * the owners; new ghosts are requested from their owners. */
void HaloBuild::addLayer(int layer)
{
    const std::vector<std::vector<std::int64_t>> replies { adjacencyReplies() };
    std::vector<MPI_Request> requests;
    sendAdjacency(layer, replies, requests);
    std::map<int, std::vector<std::int64_t>> asks { receiveAdjacency(layer) };
    FIELDSYNC_MPI_AT(
        MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE), where_
    );
    raiseIfAnyFailed();
    registerLayerRequests(layer, asks);
    raiseIfAnyFailed();
}

/** @brief Owner side: for each requester, the cells it asked for last time, each as
 * (id, degree, (neighbour, owner)...). */
std::vector<std::vector<std::int64_t>> HaloBuild::adjacencyReplies() const
{
    std::vector<std::vector<std::int64_t>> replies;
    replies.reserve(newRequests_.size());
    for (const auto& entry : newRequests_)
    {
        std::vector<std::int64_t> reply;
        for (const GlobalIndex b : entry.second)
        {
            const auto nbrs = owned_.neighbours(static_cast<std::size_t>(ownedLocal_.find(b)));
            reply.push_back(b);
            reply.push_back(static_cast<std::int64_t>(nbrs.size()));
            for (const GlobalIndex n : nbrs)
            {
                reply.push_back(n);
                reply.push_back(ownedLocal_.contains(n) ? self_ : ghosts_.ownerOf(n));
            }
        }
        replies.push_back(std::move(reply));
    }
    return replies;
}

/** @brief Starts one send of @p replies per requester (in the order of newRequests_). */
void HaloBuild::sendAdjacency(
    int layer,
    const std::vector<std::vector<std::int64_t>>& replies,
    std::vector<MPI_Request>& requests
) const
{
    std::size_t r { 0 };
    for (const auto& entry : newRequests_)
    {
        const std::vector<std::int64_t>& reply { replies[r++] };
        MPI_Request request { MPI_REQUEST_NULL };
        FIELDSYNC_MPI_AT(
            MPI_Isend(
                reply.data(),
                static_cast<int>(reply.size()),
                MPI_INT64_T,
                entry.first,
                adjacencyTagBase + layer,
                comm_,
                &request
            ),
            where_
        );
        requests.push_back(request);
    }
}

/** @brief Requester side: one reply from each owner of the last layer; returns the new ghosts
 * to ask for, by owner. */
std::map<int, std::vector<std::int64_t>> HaloBuild::receiveAdjacency(int layer)
{
    std::vector<int> lastOwners;
    for (const GlobalIndex b : lastLayer_)
    {
        lastOwners.push_back(ghosts_.ownerOf(b));
    }
    std::sort(lastOwners.begin(), lastOwners.end());
    lastOwners.erase(std::unique(lastOwners.begin(), lastOwners.end()), lastOwners.end());
    std::map<int, std::vector<std::int64_t>> asks;
    lastLayer_.clear();
    for (const int q : lastOwners)
    {
        MPI_Status status;
        FIELDSYNC_MPI_AT(MPI_Probe(q, adjacencyTagBase + layer, comm_, &status), where_);
        int count { 0 };
        FIELDSYNC_MPI_AT(MPI_Get_count(&status, MPI_INT64_T, &count), where_);
        std::vector<std::int64_t> reply(static_cast<std::size_t>(count));
        FIELDSYNC_MPI_AT(
            MPI_Recv(
                reply.data(),
                count,
                MPI_INT64_T,
                q,
                adjacencyTagBase + layer,
                comm_,
                MPI_STATUS_IGNORE
            ),
            where_
        );
        readAdjacencyReply(q, reply, layer, asks);
    }
    return asks;
}

/** @brief Reads owner @p q's reply: each neighbour not yet known becomes a ghost of @p layer. */
void HaloBuild::readAdjacencyReply(
    int q,
    const std::vector<std::int64_t>& reply,
    int layer,
    std::map<int, std::vector<std::int64_t>>& asks
)
{
    std::size_t k { 0 };
    while (k + 1 < reply.size())
    {
        const auto degree = static_cast<std::size_t>(reply[k + 1]);
        k += 2;
        for (std::size_t e { 0 }; e < degree; ++e, k += 2)
        {
            const GlobalIndex n { reply[k] };
            const int owner { static_cast<int>(reply[k + 1]) };
            if (ownedLocal_.contains(n) || ghosts_.slotOf.contains(n))
            {
                continue;
            }
            if (owner == self_ || owner < 0)
            {
                fail(
                    "HaloBuilder: rank " + std::to_string(q) + " names owner " +
                    std::to_string(owner) + " for " + cellText(n) +
                    ", which this rank does not own" + onRank_
                );
                continue;
            }
            ghosts_.add(n, owner, layer);
            asks[owner].push_back(n);
            lastLayer_.push_back(n);
        }
    }
}

/** @brief The owners of the new layer learn who needs which of their cells. */
void HaloBuild::registerLayerRequests(int layer, std::map<int, std::vector<std::int64_t>>& asks)
{
    newRequests_.clear();
    for (const mpi::SparseMessage& message : mpi::sparseExchange(
             comm_, layerTagBase + layer, toMessages(asks), "HaloBuilder layer", where_
         ))
    {
        auto& cells = newRequests_[message.rank];
        for (const std::int64_t b : message.data)
        {
            if (!ownedLocal_.contains(b))
            {
                fail(
                    "HaloBuilder: rank " + std::to_string(message.rank) + " asks for " +
                    cellText(b) + " (halo layer " + std::to_string(layer) +
                    "), which this rank does not own" + onRank_
                );
                continue;
            }
            cells.push_back(b);
        }
        sortUnique(cells);
        auto& all = sendCells_[message.rank];
        all.insert(all.end(), cells.begin(), cells.end());
    }
}

/** @brief Local numbering (owned cells, then ghosts by owner and global id) and both maps. */
HaloLayout HaloBuild::makeLayout()
{
    GhostNumbering ghosts { numberGhosts() };
    halo::RankSimplexCommMap send { sendMap() };
    std::vector<LocalIndex> neighbours { ownedNeighbours(ghosts.slotLocal) };
    return HaloLayout(
        owned_.nCells(),
        std::move(ghosts.globalIds),
        std::move(ghosts.ghostOwners),
        std::move(ghosts.ghostLayers),
        std::vector<std::size_t>(owned_.offsets().begin(), owned_.offsets().end()),
        std::move(neighbours),
        std::move(send),
        halo::RankSimplexCommMap(
            nRanks_,
            std::move(ghosts.receiveRanks),
            std::move(ghosts.receiveOffsets),
            std::move(ghosts.receiveIndices),
            where_
        ),
        directoryEntries_
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
    std::sort(
        ghosts.begin(),
        ghosts.end(),
        [](const Ghost& x, const Ghost& y)
        { return x.owner != y.owner ? x.owner < y.owner : x.id < y.id; }
    );
    FIELDSYNC_CHECK_AT(
        nOwned + ghosts.size() < static_cast<std::size_t>(std::numeric_limits<LocalIndex>::max()),
        "HaloBuilder: owned plus ghost cells exceed the local index range" + onRank_,
        where_
    );
    GhostNumbering result;
    result.globalIds.reserve(nOwned + ghosts.size());
    result.globalIds.assign(owned_.globalIds().begin(), owned_.globalIds().end());
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

/** @brief The owned cells' neighbours in local indices. */
std::vector<LocalIndex> HaloBuild::ownedNeighbours(const std::vector<LocalIndex>& slotLocal) const
{
    std::vector<LocalIndex> neighbours(entryCode_.size());
    for (std::size_t e { 0 }; e < entryCode_.size(); ++e)
    {
        const LocalIndex code { entryCode_[e] };
        neighbours[e] = code >= 0 ? code : slotLocal[static_cast<std::size_t>(-code - 1)];
    }
    return neighbours;
}

} // namespace

HaloBuilder::HaloBuilder(mpi::MPIEnvironment env, int depth, std::source_location where)
    : env_(env), private_(env.duplicate(mpi::SetUpCall::HaloBuilder, where)), depth_(depth)
{
    FIELDSYNC_CHECK_AT(
        depth_ >= 1, "HaloBuilder: halo depth must be >= 1, got " + std::to_string(depth_), where
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
