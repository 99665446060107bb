// SPDX-License-Identifier: MIT
#include "fieldsync/partition/rebalanceTrigger.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/core/logger.hpp"
#include "fieldsync/mpi/collectives.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <ctime>
#include <string>

#include <sched.h>

namespace fieldsync::partition
{

namespace
{
/** @brief @p seconds as integer nanoseconds (sums of integers are exact in any order). */
std::int64_t toNanoseconds(double seconds)
{
    return static_cast<std::int64_t>(std::llround(seconds * 1e9));
}

/** @brief The slots of decide()'s Max reduction. */
enum Slot : std::size_t
{
    MaxWork,        /**< largest work over the window, ns */
    MaxNodeFloor,   /**< largest work of a node over the window, over its cores, ns */
    MaxSteps,       /**< largest step count of the window */
    MinusMinSteps,  /**< minus the smallest step count of the window */
    LastSteps,      /**< largest step count of the last interval */
    MeasuredCost,   /**< largest measured rebalance cost, ns (-1: none) */
    CostEstimate,   /**< largest caller's estimate, ns */
    Horizon,        /**< largest horizon passed */
    MinusHorizon,   /**< minus the smallest horizon passed */
    Limit,          /**< largest limit passed */
    MinusLimit,     /**< minus the smallest limit passed */
    NoInterval,     /**< highest rank with no recorded interval (-1: none) */
    NegativeHorizon /**< highest rank that passed a horizon or a limit < 0 (-1: none) */
};
constexpr std::size_t nSlots { NegativeHorizon + 1 };

/** @brief The CPUs this process may run on (its affinity mask), one bit each. */
std::array<std::uint64_t, CPU_SETSIZE / 64> cpuMask()
{
    cpu_set_t set;
    CPU_ZERO(&set);
    std::array<std::uint64_t, CPU_SETSIZE / 64> mask {};
    if (sched_getaffinity(0, sizeof(set), &set) != 0)
    {
        mask[0] = 1; // unknown: one core
        return mask;
    }
    for (int cpu { 0 }; cpu < CPU_SETSIZE; ++cpu)
    {
        if (CPU_ISSET(cpu, &set))
        {
            mask[static_cast<std::size_t>(cpu / 64)] |= std::uint64_t { 1 } << (cpu % 64);
        }
    }
    return mask;
}

/** @brief "" or why the agreed inputs @p m of decide() are unusable. */
std::string badAgreed(const std::array<std::int64_t, nSlots>& m)
{
    if (m[NoInterval] >= 0)
    {
        return "RebalanceTrigger::decide: rank " + std::to_string(m[NoInterval]) +
               " has recorded no interval (addInterval) since the start or the last rebalance";
    }
    if (m[NegativeHorizon] >= 0)
    {
        return "RebalanceTrigger::decide: rank " + std::to_string(m[NegativeHorizon]) +
               " passed a horizon or a limit < 0";
    }
    if (m[MaxSteps] != -m[MinusMinSteps] || m[Horizon] != -m[MinusHorizon] ||
        m[Limit] != -m[MinusLimit])
    {
        return "RebalanceTrigger::decide: the ranks disagree: steps recorded " +
               std::to_string(-m[MinusMinSteps]) + " to " + std::to_string(m[MaxSteps]) +
               ", horizon " + std::to_string(-m[MinusHorizon]) + " to " +
               std::to_string(m[Horizon]) + ", limit " + std::to_string(-m[MinusLimit]) + " to " +
               std::to_string(m[Limit]);
    }
    return {};
}
} // namespace

RebalanceTrigger::RebalanceTrigger(
    mpi::MPIEnvironment env, RebalanceTriggerOptions options, std::source_location where
)
    : env_(std::move(env)), node_(env_.splitShared(where)), options_(options)
{
    FIELDSYNC_CHECK_AT(
        options_.window >= 1 && options_.costEstimate >= 0.0 && options_.nodeCores >= 0,
        "RebalanceTrigger: window " + std::to_string(options_.window) +
            " (must be >= 1), cost estimate " + std::to_string(options_.costEstimate) +
            " s (must be >= 0), node cores " + std::to_string(options_.nodeCores) +
            " (must be >= 0)",
        where
    );
    // the cores of this node's ranks: the caller's number, or the union of their affinity masks
    auto mask { cpuMask() };
    mpi::allReduce(std::span<std::uint64_t>(mask), mpi::ReduceOp::BOr, node_.comm(), {}, where);
    nodeCores_ = 0;
    for (const std::uint64_t word : mask)
    {
        nodeCores_ += std::popcount(word);
    }
    nodeCores_ = std::max(options_.nodeCores > 0 ? options_.nodeCores : nodeCores_, 1);
    oversubscribed_ = std::max(1.0, static_cast<double>(node_.sizeRank()) / nodeCores_);
    mpi::allReduce(oversubscribed_, mpi::ReduceOp::Max, env_.comm(), {}, where);
}

void RebalanceTrigger::addInterval(double workSeconds, int steps, std::source_location where)
{
    FIELDSYNC_CHECK_AT(
        workSeconds >= 0.0 && steps > 0,
        "RebalanceTrigger::addInterval: work " + std::to_string(workSeconds) + " s over " +
            std::to_string(steps) + " steps (work must be >= 0, steps > 0)",
        where
    );
    intervals_.push_back({ toNanoseconds(workSeconds), steps });
    while (intervals_.size() > static_cast<std::size_t>(options_.window))
    {
        intervals_.pop_front();
    }
}

RebalanceDecision RebalanceTrigger::decide(int horizon, int limit, std::source_location where)
{
    std::int64_t work { 0 };
    std::int64_t steps { 0 };
    for (const Interval& i : intervals_)
    {
        work += i.nanoseconds;
        steps += i.steps;
    }
    const std::int64_t last { intervals_.empty() ? 0 : intervals_.back().steps };
    const std::int64_t rank { env_.rank() };
    std::int64_t nodeWork { work };
    mpi::allReduce(nodeWork, mpi::ReduceOp::Sum, node_.comm(), {}, where);
    std::array<std::int64_t, nSlots> m { work,
                                         nodeWork / nodeCores_,
                                         steps,
                                         -steps,
                                         last,
                                         costNanoseconds_,
                                         toNanoseconds(options_.costEstimate),
                                         horizon,
                                         -static_cast<std::int64_t>(horizon),
                                         limit,
                                         -static_cast<std::int64_t>(limit),
                                         intervals_.empty() ? rank : -1,
                                         horizon < 0 || limit < 0 ? rank : -1 };
    std::int64_t sumWork { work };
    mpi::allReduce(std::span<std::int64_t>(m), mpi::ReduceOp::Max, env_.comm(), {}, where);
    mpi::allReduce(sumWork, mpi::ReduceOp::Sum, env_.comm(), {}, where);
    const std::string bad { badAgreed(m) };
    if (!bad.empty())
    {
        throw Error(bad, where); // every rank saw the same reduced values
    }
    // every rank computes from the same integers: the same decision everywhere
    RebalanceDecision d;
    const auto perStep = [&](double nanoseconds)
    {
        return nanoseconds * 1e-9 / static_cast<double>(m[MaxSteps]);
    };
    d.maxPerStep = perStep(static_cast<double>(m[MaxWork]));
    d.meanPerStep = perStep(static_cast<double>(sumWork) / env_.sizeRank());
    d.stepNow = std::max(d.maxPerStep, perStep(static_cast<double>(m[MaxNodeFloor])));
    d.stepBalanced = d.meanPerStep * oversubscribed_;
    const double imbalance { d.stepNow - d.stepBalanced };
    imbalances_.emplace_back(imbalance, m[LastSteps]);
    std::int64_t persisted { 0 };
    for (auto i { imbalances_.rbegin() };
         i != imbalances_.rend() && imbalance > 0.0 && i->first >= 0.5 * imbalance;
         ++i)
    {
        persisted += i->second;
    }
    d.persistedSteps = static_cast<int>(persisted);
    std::int64_t over { m[Horizon] > 0 ? m[Horizon] : m[LastSteps] };
    if (options_.extendWhilePersisting)
    {
        over = std::max(over, persisted);
    }
    if (m[Limit] > 0)
    {
        over = std::min(over, m[Limit]);
    }
    d.horizon = static_cast<int>(over);
    d.gainSeconds = imbalance * d.horizon;
    d.measuredCost = m[MeasuredCost] >= 0;
    d.costSeconds = static_cast<double>(d.measuredCost ? m[MeasuredCost] : m[CostEstimate]) * 1e-9;
    d.rebalance = d.gainSeconds > d.costSeconds;
    if (env_.rank() == 0)
    {
        logger().info(
            "RebalanceTrigger: {} (gain {:.4g} s = (step now {:.4g} - balanced {:.4g} s) x {} "
            "steps (the imbalance has lasted {}), against a {} cost {:.4g} s)",
            d.rebalance ? "rebalance" : "keep the partition",
            d.gainSeconds,
            d.stepNow,
            d.stepBalanced,
            d.horizon,
            d.persistedSteps,
            d.measuredCost ? "measured" : "estimated",
            d.costSeconds
        );
    }
    return d;
}

void RebalanceTrigger::rebalanced(double seconds, std::source_location where)
{
    FIELDSYNC_CHECK_AT(
        seconds >= 0.0,
        "RebalanceTrigger::rebalanced: cost " + std::to_string(seconds) + " s (must be >= 0)",
        where
    );
    costNanoseconds_ = toNanoseconds(seconds);
    intervals_.clear();
    imbalances_.clear();
}

double RebalanceTrigger::threadCpuSeconds() noexcept
{
    timespec t {};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

} // namespace fieldsync::partition
