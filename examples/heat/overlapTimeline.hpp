// SPDX-License-Identifier: MIT
#pragma once

#include "fieldsync/halo/communicator.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"

#include <Kokkos_Core.hpp>

#include <chrono>
#include <span>
#include <vector>

namespace fieldsync::heat
{

/**
 * @brief How one rank's halo waits split, over a run of steps: waits for a peer that had not yet
 * posted when this rank's interior update ended (load imbalance), and the transport that the
 * interior update did not hide.
 */
struct OverlapSplit
{
    int exchanges { 0 }; /**< exchanges of the run */
    /**
     * @brief Exchanges whose last peer posted its sends at least one transport time (below)
     * before this rank's interior update ended: the interior work was longer than the exchange,
     * so the transport could be hidden.
     */
    int hideable { 0 };
    int hiddenHideable { 0 }; /**< of those, the ones complete when the update ended */
    double peerLate { 0.0 };  /**< seconds from the update's end to the last peer's post, summed */
};

/**
 * @brief Collective: the least time of a few exchanges of @p field under @p key started by every
 * rank of @p ranks together and waited for at once (the exchange alone, without interior work).
 * The ghosts get the owners' current values: the field does not change.
 */
[[nodiscard]] double exchangeAlone(
    halo::Communicator& comm, const CommKey& key, const Kokkos::View<double*>& field, MPI_Comm ranks
);

/**
 * @brief The split of one rank's steps, in its clock: step s's interior update ended at
 * @p interiorEnd[s] (the exchange @p complete[s] then), its last neighbour posted at
 * @p latestPeerPost[s]; the exchange alone takes @p exchangeSeconds.
 */
[[nodiscard]] OverlapSplit splitSteps(
    std::span<const double> interiorEnd,
    std::span<const char> complete,
    std::span<const double> latestPeerPost,
    double exchangeSeconds
);

/**
 * @brief Per step of a run: when this rank posted its exchange, and when its interior update
 * ended (and whether the exchange was complete then). After the run, split() learns the
 * neighbours' post times and tells imbalance from transport.
 */
class OverlapTimeline
{
public:
    /** @brief Room for @p steps steps. */
    explicit OverlapTimeline(int steps);

    /** @brief The exchange of this step is posted (startComm returned). */
    void posted() { post_.push_back(now()); }

    /** @brief The interior update ended; @p complete: the exchange was complete then. */
    void interiorEnded(bool complete)
    {
        interiorEnd_.push_back(now());
        complete_.push_back(complete ? 1 : 0);
    }

    /**
     * @brief The time the exchange takes alone (started, then waited for at once, by every rank
     * together): the interior work after the last peer's post must be at least this long for
     * the transport to be hidden.
     */
    void calibrated(double exchangeSeconds);

    /**
     * @brief Collective over @p comm's neighbours (on @p env, the ranks @p comm was built over):
     * measures the clock offset to each neighbour, exchanges the post times with them, and splits
     * this rank's waits.
     */
    [[nodiscard]] OverlapSplit
    split(const halo::Communicator& comm, const mpi::MPIEnvironment& env) const;

private:
    /** @brief Seconds on this rank's steady clock. */
    static double now()
    {
        return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
            .count();
    }

    std::vector<double> post_;        /**< when each step's exchange was posted */
    std::vector<double> interiorEnd_; /**< when each step's interior update ended */
    std::vector<char> complete_;      /**< whether the exchange was complete then */
    double exchangeSeconds_ { 0.0 };  /**< the exchange alone (calibrated) */
};

} // namespace fieldsync::heat
