// SPDX-License-Identifier: MIT
#include "fieldsync/partition/haloBuilder.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/partition/ownerDirectory.hpp"
#include "fieldsync/partition/sparseExchange.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace fieldsync
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

std::vector<SparseMessage> toMessages(std::map<int, std::vector<std::int64_t>>& grouped)
{
    std::vector<SparseMessage> out;
    out.reserve(grouped.size());
    for (auto& [rank, data] : grouped)
    {
        out.push_back(SparseMessage { rank, std::move(data) });
    }
    return out;
}

void sortUnique(std::vector<GlobalIndex>& ids)
{
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
}
} // namespace

HaloBuilder::HaloBuilder(mpi::MPIEnvironment env, int depth, std::source_location where)
    : env_(env), private_(env.duplicate()), depth_(depth)
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
    const MPI_Comm comm { private_.comm() };
    const int self { private_.rank() };
    const int nRanks { private_.sizeRank() };
    const std::string onRank { " (rank " + std::to_string(self) + ")" };
    std::string error;
    const auto fail = [&error](std::string message)
    {
        if (error.empty())
        {
            error = std::move(message);
        }
    };

    // owned cells: global id -> local index
    const std::size_t nOwned { owned.nCells() };
    std::unordered_map<GlobalIndex, LocalIndex> ownedLocal;
    ownedLocal.reserve(nOwned);
    if (nOwned >= static_cast<std::size_t>(std::numeric_limits<LocalIndex>::max()))
    {
        fail(
            "HaloBuilder: " + std::to_string(nOwned) + " owned cells exceed the local index range"
        );
    }
    for (std::size_t i { 0 }; i < nOwned && error.empty(); ++i)
    {
        if (!ownedLocal.emplace(owned.globalId(i), static_cast<LocalIndex>(i)).second)
        {
            fail("HaloBuilder: " + cellText(owned.globalId(i)) + " is listed twice" + onRank);
        }
    }
    if (ownersGiven && neighbourOwners.size() != owned.adjacency().size())
    {
        fail(
            "HaloBuilder: " + std::to_string(neighbourOwners.size()) + " neighbour owners for " +
            std::to_string(owned.adjacency().size()) + " neighbour entries" + onRank
        );
    }
    raiseIfAnyFailed(comm, error, where);

    // local symmetry and the first halo layer
    std::map<GlobalIndex, int> ghostOwner;          // ghost id -> owner
    std::map<GlobalIndex, int> ghostLayer;          // ghost id -> layer
    std::map<int, std::vector<std::int64_t>> edges; // owner -> (ghost, my cell) pairs
    for (std::size_t i { 0 }; i < nOwned; ++i)
    {
        const GlobalIndex a { owned.globalId(i) };
        const auto nbrs = owned.neighbours(i);
        for (std::size_t k { 0 }; k < nbrs.size(); ++k)
        {
            const GlobalIndex b { nbrs[k] };
            const auto local = ownedLocal.find(b);
            if (local != ownedLocal.end())
            {
                const auto back = owned.neighbours(static_cast<std::size_t>(local->second));
                if (std::find(back.begin(), back.end(), a) == back.end())
                {
                    fail(
                        "HaloBuilder: asymmetric graph: " + cellText(a) + " lists neighbour " +
                        std::to_string(b) + " but " + cellText(b) + " does not list " +
                        std::to_string(a) + onRank
                    );
                }
                continue;
            }
            ghostLayer[b] = 1;
            if (ownersGiven)
            {
                const int q { neighbourOwners[owned.offsets()[i] + k] };
                if (q < 0 || q >= nRanks || q == self)
                {
                    fail(
                        "HaloBuilder: " + cellText(a) + ": neighbour " + std::to_string(b) +
                        " has owner " + std::to_string(q) + ", but " +
                        (q == self ? "this rank does not own it"
                                   : "ranks are 0.." + std::to_string(nRanks - 1)) +
                        onRank
                    );
                    continue;
                }
                const auto [it, inserted] = ghostOwner.emplace(b, q);
                if (!inserted && it->second != q)
                {
                    fail(
                        "HaloBuilder: " + cellText(b) + " is given two owners, " +
                        std::to_string(it->second) + " and " + std::to_string(q) + onRank
                    );
                }
            }
        }
    }
    std::size_t directoryEntries { 0 };
    if (!ownersGiven)
    {
        const OwnerDirectory directory(comm, owned.globalIds(), where);
        directoryEntries = directory.localEntries();
        std::vector<GlobalIndex> asked;
        asked.reserve(ghostLayer.size());
        for (const auto& entry : ghostLayer)
        {
            asked.push_back(entry.first);
        }
        const std::vector<int> owners { directory.owners(asked, where) };
        for (std::size_t k { 0 }; k < asked.size(); ++k)
        {
            ghostOwner[asked[k]] = owners[k];
        }
        for (std::size_t i { 0 }; i < nOwned; ++i)
        {
            for (const GlobalIndex b : owned.neighbours(i))
            {
                const auto it = ghostOwner.find(b);
                if (it != ghostOwner.end() && it->second < 0)
                {
                    fail(
                        "HaloBuilder: " + cellText(owned.globalId(i)) + " has neighbour " +
                        std::to_string(b) + " that no rank owns" + onRank
                    );
                }
            }
        }
    }
    raiseIfAnyFailed(comm, error, where);

    for (std::size_t i { 0 }; i < nOwned; ++i)
    {
        for (const GlobalIndex b : owned.neighbours(i))
        {
            const auto it = ghostOwner.find(b);
            if (it != ghostOwner.end())
            {
                auto& message = edges[it->second];
                message.push_back(b);
                message.push_back(owned.globalId(i));
            }
        }
    }

    // owner side of layer 1: check the requests and the symmetry of the cut edges
    std::map<int, std::vector<GlobalIndex>> sendCells;   // requester -> my cells it needs
    std::map<int, std::vector<GlobalIndex>> newRequests; // requester -> cells of this layer
    for (const SparseMessage& message :
         sparseExchange(comm, edgeTag, toMessages(edges), "HaloBuilder edges", where))
    {
        auto& cells = newRequests[message.rank];
        for (std::size_t k { 0 }; k + 1 < message.data.size(); k += 2)
        {
            const GlobalIndex b { message.data[k] };
            const GlobalIndex a { message.data[k + 1] };
            const auto local = ownedLocal.find(b);
            if (local == ownedLocal.end())
            {
                fail(
                    "HaloBuilder: rank " + std::to_string(message.rank) + " says its " +
                    cellText(a) + " has neighbour " + std::to_string(b) +
                    ", owned by this rank, but no rank owns " + cellText(b) + onRank
                );
                continue;
            }
            const auto back = owned.neighbours(static_cast<std::size_t>(local->second));
            if (std::find(back.begin(), back.end(), a) == back.end())
            {
                fail(
                    "HaloBuilder: asymmetric graph: " + cellText(a) + " (rank " +
                    std::to_string(message.rank) + ") lists neighbour " + std::to_string(b) +
                    " but " + cellText(b) + " does not list " + std::to_string(a) + onRank
                );
            }
            cells.push_back(b);
        }
        sortUnique(cells);
    }
    raiseIfAnyFailed(comm, error, where);
    for (const auto& [rank, cells] : newRequests)
    {
        auto& all = sendCells[rank];
        all.insert(all.end(), cells.begin(), cells.end());
    }

    // further layers: the owners of the last layer send its adjacency with the owners
    std::vector<GlobalIndex> lastLayer;
    for (const auto& entry : ghostOwner)
    {
        lastLayer.push_back(entry.first);
    }
    for (int layer { 2 }; layer <= depth_; ++layer)
    {
        // owner side: adjacency of the cells each requester asked for last time
        std::vector<std::vector<std::int64_t>> replies;
        std::vector<MPI_Request> requests;
        replies.reserve(newRequests.size());
        for (const auto& [rank, cells] : newRequests)
        {
            std::vector<std::int64_t> reply;
            for (const GlobalIndex b : cells)
            {
                const auto nbrs = owned.neighbours(static_cast<std::size_t>(ownedLocal.at(b)));
                reply.push_back(b);
                reply.push_back(static_cast<std::int64_t>(nbrs.size()));
                for (const GlobalIndex n : nbrs)
                {
                    reply.push_back(n);
                    reply.push_back(ownedLocal.contains(n) ? self : ghostOwner.at(n));
                }
            }
            replies.push_back(std::move(reply));
            MPI_Request request { MPI_REQUEST_NULL };
            FIELDSYNC_MPI_AT(
                MPI_Isend(
                    replies.back().data(),
                    static_cast<int>(replies.back().size()),
                    MPI_INT64_T,
                    rank,
                    adjacencyTagBase + layer,
                    comm,
                    &request
                ),
                where
            );
            requests.push_back(request);
        }
        // requester side: one reply from each owner of the last layer
        std::vector<int> lastOwners;
        for (const GlobalIndex b : lastLayer)
        {
            lastOwners.push_back(ghostOwner.at(b));
        }
        std::sort(lastOwners.begin(), lastOwners.end());
        lastOwners.erase(std::unique(lastOwners.begin(), lastOwners.end()), lastOwners.end());
        std::map<int, std::vector<std::int64_t>> asks;
        std::vector<GlobalIndex> thisLayer;
        for (const int q : lastOwners)
        {
            MPI_Status status;
            FIELDSYNC_MPI_AT(MPI_Probe(q, adjacencyTagBase + layer, comm, &status), where);
            int count { 0 };
            FIELDSYNC_MPI_AT(MPI_Get_count(&status, MPI_INT64_T, &count), where);
            std::vector<std::int64_t> reply(static_cast<std::size_t>(count));
            FIELDSYNC_MPI_AT(
                MPI_Recv(
                    reply.data(),
                    count,
                    MPI_INT64_T,
                    q,
                    adjacencyTagBase + layer,
                    comm,
                    MPI_STATUS_IGNORE
                ),
                where
            );
            std::size_t k { 0 };
            while (k + 1 < reply.size())
            {
                const auto degree = static_cast<std::size_t>(reply[k + 1]);
                k += 2;
                for (std::size_t e { 0 }; e < degree; ++e, k += 2)
                {
                    const GlobalIndex n { reply[k] };
                    const int owner { static_cast<int>(reply[k + 1]) };
                    if (ownedLocal.contains(n) || ghostOwner.contains(n))
                    {
                        continue;
                    }
                    if (owner == self || owner < 0)
                    {
                        fail(
                            "HaloBuilder: rank " + std::to_string(q) + " names owner " +
                            std::to_string(owner) + " for " + cellText(n) +
                            ", which this rank does not own" + onRank
                        );
                        continue;
                    }
                    ghostOwner[n] = owner;
                    ghostLayer[n] = layer;
                    asks[owner].push_back(n);
                    thisLayer.push_back(n);
                }
            }
        }
        FIELDSYNC_MPI_AT(
            MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE),
            where
        );
        raiseIfAnyFailed(comm, error, where);
        // the owners of the new layer learn who needs which of their cells
        newRequests.clear();
        for (const SparseMessage& message : sparseExchange(
                 comm, layerTagBase + layer, toMessages(asks), "HaloBuilder layer", where
             ))
        {
            auto& cells = newRequests[message.rank];
            for (const std::int64_t b : message.data)
            {
                if (!ownedLocal.contains(b))
                {
                    fail(
                        "HaloBuilder: rank " + std::to_string(message.rank) + " asks for " +
                        cellText(b) + " (halo layer " + std::to_string(layer) +
                        "), which this rank does not own" + onRank
                    );
                    continue;
                }
                cells.push_back(b);
            }
            sortUnique(cells);
            auto& all = sendCells[message.rank];
            all.insert(all.end(), cells.begin(), cells.end());
        }
        raiseIfAnyFailed(comm, error, where);
        lastLayer = std::move(thisLayer);
    }

    // local numbering: owned cells, then ghosts by (owner, global id)
    std::vector<std::pair<int, GlobalIndex>> ghosts;
    ghosts.reserve(ghostOwner.size());
    for (const auto& [id, owner] : ghostOwner)
    {
        ghosts.emplace_back(owner, id);
    }
    std::sort(ghosts.begin(), ghosts.end());
    FIELDSYNC_CHECK_AT(
        nOwned + ghosts.size() < static_cast<std::size_t>(std::numeric_limits<LocalIndex>::max()),
        "HaloBuilder: owned plus ghost cells exceed the local index range" + onRank,
        where
    );
    std::vector<GlobalIndex> globalIds(owned.globalIds().begin(), owned.globalIds().end());
    std::vector<int> ghostOwners;
    std::vector<int> ghostLayers;
    std::unordered_map<GlobalIndex, LocalIndex> ghostLocal;
    ghostLocal.reserve(ghosts.size());
    std::vector<int> receiveRanks;
    std::vector<std::size_t> receiveOffsets;
    std::vector<LocalIndex> receiveIndices;
    for (std::size_t k { 0 }; k < ghosts.size(); ++k)
    {
        const auto [owner, id] = ghosts[k];
        const auto local = static_cast<LocalIndex>(nOwned + k);
        if (receiveRanks.empty() || receiveRanks.back() != owner)
        {
            receiveRanks.push_back(owner);
            receiveOffsets.push_back(k);
        }
        receiveIndices.push_back(local);
        globalIds.push_back(id);
        ghostOwners.push_back(owner);
        ghostLayers.push_back(ghostLayer.at(id));
        ghostLocal.emplace(id, local);
    }
    receiveOffsets.push_back(ghosts.size());

    std::vector<int> sendRanks;
    std::vector<std::size_t> sendOffsets { 0 };
    std::vector<LocalIndex> sendIndices;
    for (auto& [rank, cells] : sendCells)
    {
        sortUnique(cells);
        sendRanks.push_back(rank);
        for (const GlobalIndex b : cells)
        {
            sendIndices.push_back(ownedLocal.at(b));
        }
        sendOffsets.push_back(sendIndices.size());
    }

    std::vector<std::size_t> ownedOffsets(owned.offsets().begin(), owned.offsets().end());
    std::vector<LocalIndex> ownedNeighbours;
    ownedNeighbours.reserve(owned.adjacency().size());
    for (const GlobalIndex n : owned.adjacency())
    {
        const auto it = ownedLocal.find(n);
        ownedNeighbours.push_back(it != ownedLocal.end() ? it->second : ghostLocal.at(n));
    }

    return HaloLayout(
        nOwned,
        std::move(globalIds),
        std::move(ghostOwners),
        std::move(ghostLayers),
        std::move(ownedOffsets),
        std::move(ownedNeighbours),
        halo::RankSimplexCommMap(
            nRanks, std::move(sendRanks), std::move(sendOffsets), std::move(sendIndices), where
        ),
        halo::RankSimplexCommMap(
            nRanks,
            std::move(receiveRanks),
            std::move(receiveOffsets),
            std::move(receiveIndices),
            where
        ),
        directoryEntries
    );
}

} // namespace fieldsync
