// SPDX-License-Identifier: MIT
#pragma once

#include "fieldsync/mpi/mpiEnvironment.hpp"

#include <cstdint>
#include <deque>
#include <source_location>
#include <utility>
#include <vector>

namespace fieldsync::partition
{

/** @brief Settings of a RebalanceTrigger. */
struct RebalanceTriggerOptions
{
    /**
     * @brief The predicted cost of a rebalance (seconds) until one has been measured
     * (RebalanceTrigger::rebalanced()); the caller's estimate, for example its own set-up time.
     */
    double costEstimate { 0.0 };
    int window { 1 }; /**< intervals of measured work the prediction averages (the last ones) */
    /**
     * @brief Extend the horizon while the imbalance persists: an imbalance that has lasted T
     * steps is predicted to last T more, so decide()'s horizon becomes at least T, where T
     * counts the steps of the latest intervals (since the start or the last rebalance) over
     * which the imbalance (max - mean work per step) stayed at least half its current value.
     */
    bool extendWhilePersisting { false };
    /**
     * @brief The cores the ranks of one node may run on (0: the union of their CPU affinity
     * masks, found at construction). A large value says a core per rank.
     */
    int nodeCores { 0 };
};

/** @brief One decision of a RebalanceTrigger, taken or not (the same on every rank). */
struct RebalanceDecision
{
    bool rebalance { false };   /**< the predicted gain exceeds the predicted cost */
    double gainSeconds { 0.0 }; /**< (max - mean over ranks of the work per step) * horizon */
    double costSeconds { 0.0 }; /**< the last measured rebalance cost, or the estimate */
    double maxPerStep { 0.0 };  /**< the most loaded rank's work per step, seconds */
    double meanPerStep { 0.0 }; /**< the mean over ranks of the work per step, seconds */
    /**
     * @brief A step's time now, seconds: the most loaded rank's work, or the most loaded
     * node's work over its cores when its ranks share fewer cores than there are ranks.
     */
    double stepNow { 0.0 };
    /** @brief A step's time with the work balanced over the ranks, seconds (the same rule). */
    double stepBalanced { 0.0 };
    int horizon { 0 };           /**< steps the gain is predicted over */
    int persistedSteps { 0 };    /**< steps the imbalance has lasted (extendWhilePersisting) */
    bool measuredCost { false }; /**< costSeconds was measured (false: the estimate) */
};

/**
 * @brief Decides, collectively, whether a rebalance pays: from the measured work of each rank
 * over the last intervals, the time saved over a horizon if the load were balanced,
 * gain = (step now - step balanced) * horizon steps, against the predicted cost of a rebalance
 * (the last one measured, or the caller's estimate before the first). It rebalances only when
 * gain > cost. Every decision, taken or not, is logged (the `fieldsync` logger, info, rank 0)
 * and returned with both numbers.
 *
 * A step takes as long as its most loaded rank's work, unless ranks share cores: the P_n ranks
 * of a node that may run on C_n < P_n cores (the union of their CPU affinity masks) need at
 * least the node's work over C_n, since a rank that waits yields its core to the others. So
 * step now = max(max over ranks of w, max over nodes of (sum of w on the node) / C_n) and
 * step balanced = mean of w * max(1, max over nodes of P_n / C_n). With a core per rank this
 * is (max - mean) * horizon; on a node with twice as many ranks as cores, a rank needs more
 * than twice the mean before balancing can gain.
 *
 * Work is what the caller measures of its compute; threadCpuSeconds() (CLOCK_THREAD_CPUTIME_ID)
 * is the measure to use on the host: a rank that shares its core with another process is
 * descheduled for part of its wall time, so its wall time grows although its cells cost no more,
 * and no partition can remove that; thread CPU time counts only the cycles this thread ran.
 *
 * The decision is agreed: decide() reduces the work (integer nanoseconds, whose sums are exact
 * in any order) and the cost across the ranks with allReduce, and every rank computes the
 * decision from the same reduced integers, so every rank takes the same decision whatever it
 * passed.
 */
class RebalanceTrigger
{
public:
    /**
     * @brief A trigger over the ranks of @p env.
     * @throws Error at @p where when options.window < 1 or options.costEstimate < 0.
     */
    explicit RebalanceTrigger(
        mpi::MPIEnvironment env,
        RebalanceTriggerOptions options = {},
        std::source_location where = std::source_location::current()
    );

    /**
     * @brief Not collective: records this rank's @p workSeconds measured over the last
     * interval of @p steps steps (the oldest interval beyond the window is forgotten).
     * @throws Error at @p where when @p workSeconds < 0 or @p steps <= 0.
     */
    void addInterval(
        double workSeconds, int steps, std::source_location where = std::source_location::current()
    );

    /**
     * @brief Collective: whether to rebalance now, predicting the gain over @p horizon steps
     * (0: until the next check, the steps of the last interval; with extendWhilePersisting at
     * least the steps the imbalance has lasted), and never over more than @p limit steps (0: no
     * limit; for example the steps left in the run). Every rank must call it with the same
     * arguments; the result is the same on every rank.
     * @throws Error at @p where, on every rank, when some rank has recorded no interval, passes
     * @p horizon < 0 or @p limit < 0, or the ranks disagree on their arguments or step counts.
     */
    [[nodiscard]] RebalanceDecision decide(
        int horizon = 0, int limit = 0, std::source_location where = std::source_location::current()
    );

    /** @brief decide(horizon, 0, where): the form before the limit. */
    [[deprecated("pass the limit: decide(horizon, 0, where)")]] [[nodiscard]] RebalanceDecision
    decide(int horizon, std::source_location where)
    {
        return decide(horizon, 0, where);
    }

    /**
     * @brief Not collective: a rebalance was made and cost @p seconds (this rank's measure; the
     * next decide() takes the largest over the ranks). The recorded work described the old
     * partition and is forgotten.
     * @throws Error at @p where when @p seconds < 0.
     */
    void rebalanced(double seconds, std::source_location where = std::source_location::current());

    /** @brief The settings. */
    [[nodiscard]] const RebalanceTriggerOptions& options() const noexcept { return options_; }

    /** @brief The CPU time this thread has run, seconds (CLOCK_THREAD_CPUTIME_ID). */
    [[nodiscard]] static double threadCpuSeconds() noexcept;

private:
    /** @brief One interval's work on this rank. */
    struct Interval
    {
        std::int64_t nanoseconds { 0 }; /**< work */
        std::int64_t steps { 0 };       /**< steps it covered */
    };

    mpi::MPIEnvironment env_;             /**< the ranks */
    mpi::MPIEnvironment node_;            /**< the ranks of this node (shared memory) */
    int nodeCores_ { 1 };                 /**< the cores this node's ranks may run on */
    double oversubscribed_ { 1.0 };       /**< max(1, max over nodes of ranks / cores) */
    RebalanceTriggerOptions options_;     /**< settings */
    std::deque<Interval> intervals_;      /**< the last intervals, at most options_.window */
    std::int64_t costNanoseconds_ { -1 }; /**< the last measured rebalance cost (-1: none yet) */
    /**
     * @brief Each decision's agreed imbalance (max - mean work per step, seconds) and the
     * steps of its last interval, since the start or the last rebalance (the same on every rank).
     */
    std::vector<std::pair<double, std::int64_t>> imbalances_;
};

} // namespace fieldsync::partition
