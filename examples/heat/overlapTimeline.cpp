// SPDX-License-Identifier: MIT
#include "overlapTimeline.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/mpi/collectives.hpp"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <span>
#include <utility>

namespace fieldsync::heat
{

namespace
{
constexpr int pingTag { 7101 }; /**< clock offsets (on the caller's communicator) */
constexpr int postTag { 7102 }; /**< post times */
constexpr int pings { 8 };      /**< round trips per neighbour; the shortest one counts */

/** @brief Seconds on this rank's steady clock. */
double clockNow()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

/** @brief The ranks @p comm exchanges with, other than @p me, ascending, once each. */
std::vector<int> peersOf(const halo::Communicator& comm, int me)
{
    std::vector<int> peers;
    for (const auto* map : { &comm.sendMap(), &comm.receiveMap() })
    {
        for (const int rank : map->neighbours())
        {
            if (rank != me)
            {
                peers.push_back(rank);
            }
        }
    }
    std::sort(peers.begin(), peers.end());
    peers.erase(std::unique(peers.begin(), peers.end()), peers.end());
    return peers;
}

/**
 * @brief The offset of each peer's steady clock from this rank's (peer minus mine), from the
 * round trip of least time of @p pings (the lower rank of a pair asks, the higher one answers).
 * Every rank takes its pairs in one order (by lower, then higher rank), so the blocking calls
 * cannot wait on each other in a cycle.
 */
std::vector<double> clockOffsets(std::span<const int> peers, int me, MPI_Comm comm)
{
    std::vector<double> offsets(peers.size(), 0.0);
    std::vector<std::pair<std::pair<int, int>, std::size_t>> pairs;
    for (std::size_t k { 0 }; k < peers.size(); ++k)
    {
        pairs.push_back({ { std::min(me, peers[k]), std::max(me, peers[k]) }, k });
    }
    std::sort(pairs.begin(), pairs.end());
    for (const auto& [pair, k] : pairs)
    {
        const int peer { peers[k] };
        if (me == pair.first)
        {
            double best { std::numeric_limits<double>::infinity() };
            for (int i { 0 }; i < pings; ++i)
            {
                const double sent { clockNow() };
                double theirs { 0.0 };
                FIELDSYNC_MPI(MPI_Send(&sent, 1, MPI_DOUBLE, peer, pingTag, comm));
                FIELDSYNC_MPI(
                    MPI_Recv(&theirs, 1, MPI_DOUBLE, peer, pingTag, comm, MPI_STATUS_IGNORE)
                );
                const double back { clockNow() };
                if (back - sent < best)
                {
                    best = back - sent;
                    offsets[k] = theirs - 0.5 * (sent + back);
                }
            }
            FIELDSYNC_MPI(MPI_Send(&offsets[k], 1, MPI_DOUBLE, peer, pingTag, comm));
            continue;
        }
        for (int i { 0 }; i < pings; ++i)
        {
            double theirs { 0.0 };
            FIELDSYNC_MPI(MPI_Recv(&theirs, 1, MPI_DOUBLE, peer, pingTag, comm, MPI_STATUS_IGNORE));
            const double mine { clockNow() };
            FIELDSYNC_MPI(MPI_Send(&mine, 1, MPI_DOUBLE, peer, pingTag, comm));
        }
        double mineFromTheirs { 0.0 }; // my clock minus theirs, as the lower rank measured it
        FIELDSYNC_MPI(
            MPI_Recv(&mineFromTheirs, 1, MPI_DOUBLE, peer, pingTag, comm, MPI_STATUS_IGNORE)
        );
        offsets[k] = -mineFromTheirs;
    }
    return offsets;
}
} // namespace

OverlapTimeline::OverlapTimeline(int steps)
{
    const auto n = static_cast<std::size_t>(std::max(steps, 0));
    post_.reserve(n);
    interiorEnd_.reserve(n);
    complete_.reserve(n);
}

void OverlapTimeline::calibrated(double exchangeSeconds)
{
    exchangeSeconds_ = exchangeSeconds;
}

OverlapSplit
OverlapTimeline::split(const halo::Communicator& comm, const mpi::MPIEnvironment& env) const
{
    const int me { env.rank() };
    const std::vector<int> peers { peersOf(comm, me) };
    const std::vector<double> offsets { clockOffsets(peers, me, env.comm()) };
    const std::size_t steps { post_.size() };
    // the post times of the ranks this one receives from, in this rank's clock
    std::vector<double> latestPost(steps, -std::numeric_limits<double>::infinity());
    std::vector<std::vector<double>> theirs;
    std::vector<MPI_Request> requests;
    std::vector<std::size_t> from;
    for (const int rank : comm.receiveMap().neighbours())
    {
        if (rank == me)
        {
            continue;
        }
        theirs.emplace_back(steps);
        from.push_back(static_cast<std::size_t>(
            std::lower_bound(peers.begin(), peers.end(), rank) - peers.begin()
        ));
    }
    requests.reserve(theirs.size() + comm.sendMap().neighbourCount());
    for (std::size_t j { 0 }; j < theirs.size(); ++j)
    {
        requests.emplace_back();
        FIELDSYNC_MPI(MPI_Irecv(
            theirs[j].data(),
            static_cast<int>(steps),
            MPI_DOUBLE,
            peers[from[j]],
            postTag,
            env.comm(),
            &requests.back()
        ));
    }
    for (const int rank : comm.sendMap().neighbours())
    {
        if (rank != me)
        {
            requests.emplace_back();
            FIELDSYNC_MPI(MPI_Isend(
                post_.data(),
                static_cast<int>(steps),
                MPI_DOUBLE,
                rank,
                postTag,
                env.comm(),
                &requests.back()
            ));
        }
    }
    FIELDSYNC_MPI(
        MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE)
    );
    for (std::size_t j { 0 }; j < theirs.size(); ++j)
    {
        for (std::size_t s { 0 }; s < steps; ++s)
        {
            latestPost[s] = std::max(latestPost[s], theirs[j][s] - offsets[from[j]]);
        }
    }
    if (theirs.empty()) // nothing from other ranks: nothing to hide, no one to wait for
    {
        return OverlapSplit { static_cast<int>(steps), 0, 0, 0.0 };
    }
    return splitSteps(interiorEnd_, complete_, latestPost, exchangeSeconds_);
}

OverlapSplit splitSteps(
    std::span<const double> interiorEnd,
    std::span<const char> complete,
    std::span<const double> latestPeerPost,
    double exchangeSeconds
)
{
    OverlapSplit split;
    split.exchanges = static_cast<int>(interiorEnd.size());
    for (std::size_t s { 0 }; s < interiorEnd.size(); ++s)
    {
        split.peerLate += std::max(0.0, latestPeerPost[s] - interiorEnd[s]);
        if (interiorEnd[s] - latestPeerPost[s] >= exchangeSeconds)
        {
            ++split.hideable;
            split.hiddenHideable += complete[s] != 0 ? 1 : 0;
        }
    }
    return split;
}

double exchangeAlone(
    halo::Communicator& comm, const CommKey& key, const Kokkos::View<double*>& field, MPI_Comm ranks
)
{
    double best { std::numeric_limits<double>::infinity() };
    for (int i { 0 }; i < 5; ++i) // ghosts get the owners' current values: nothing changes
    {
        mpi::barrier(ranks);
        const auto t0 = std::chrono::steady_clock::now();
        comm.startComm(field, key);
        comm.finaliseComm(field, key);
        best = std::min(
            best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()
        );
    }
    return best;
}

} // namespace fieldsync::heat
