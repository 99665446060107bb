// SPDX-License-Identifier: MIT
// RebalanceTrigger on 1..4 ranks: the decision on given work numbers against the gain and cost
// worked out by hand below for each rank count, and the agreement: ranks pass different work,
// costs and estimates and every rank gets the same decision and the same numbers (checked
// with a Min and a Max reduction of each). No timing: the work is given, not measured.
#include "fieldsync_test/catch.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/mpi/collectives.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"
#include "fieldsync/partition/rebalanceTrigger.hpp"

#include <algorithm>
#include <span>
#include <string>

using namespace fieldsync;
using namespace fieldsync::partition;

namespace
{
/**
 * @brief RebalanceTriggerOptions::nodeCores for a core per rank, whatever the machine the test
 * runs on (its ranks may share cores): the rule without shared cores, gain = (max - mean) x H.
 */
constexpr int aCorePerRank { 1 << 20 };

/** @brief Whether @p value is the same on every rank (its Min and Max over the ranks agree). */
bool sameEverywhere(double value, const mpi::MPIEnvironment& env)
{
    double low { value };
    double high { value };
    mpi::allReduce(low, mpi::ReduceOp::Min, env.comm());
    mpi::allReduce(high, mpi::ReduceOp::Max, env.comm());
    return low == value && high == value;
}

/** @brief Whether every number of @p d is the same on every rank. */
bool agreed(const RebalanceDecision& d, const mpi::MPIEnvironment& env)
{
    return sameEverywhere(d.rebalance ? 1.0 : 0.0, env) && sameEverywhere(d.gainSeconds, env) &&
           sameEverywhere(d.costSeconds, env) && sameEverywhere(d.horizon, env) &&
           sameEverywhere(d.measuredCost ? 1.0 : 0.0, env);
}
} // namespace

TEST_CASE("RebalanceTrigger: gain = (max - mean work per step) x horizon, against the cost")
{
    const mpi::MPIEnvironment env;
    const int p { env.sizeRank() };
    // rank r works 2 ms x (r + 1) per step over 50 steps: max 2p ms, mean (p + 1) ms per step,
    // so over 100 steps the gain is (2p - p - 1) ms x 100 = 0.1 s x (p - 1), by hand:
    const double gainByHand { 0.1 * (p - 1) };
    RebalanceTrigger trigger(env, { .costEstimate = 0.05, .nodeCores = aCorePerRank });
    trigger.addInterval(0.1 * (env.rank() + 1), 50);
    const RebalanceDecision first { trigger.decide(100) };
    CHECK(first.gainSeconds == Approx(gainByHand).margin(1e-12));
    CHECK(first.maxPerStep == Approx(0.002 * p));
    CHECK(first.meanPerStep == Approx(0.001 * (p + 1)));
    CHECK(first.horizon == 100);
    CHECK(first.costSeconds == Approx(0.05));
    CHECK_FALSE(first.measuredCost);
    CHECK(first.rebalance == (p > 1)); // 0.1 s and more against 0.05 s; nothing on one rank

    // a measured cost of 0.16 s replaces the estimate: only a gain of 0.2 s or more pays
    trigger.rebalanced(0.16);
    trigger.addInterval(0.1 * (env.rank() + 1), 50);
    const RebalanceDecision second { trigger.decide(100) };
    CHECK(second.costSeconds == Approx(0.16));
    CHECK(second.measuredCost);
    CHECK(second.rebalance == (p > 2));

    // horizon 0: until the next check, the last interval's 50 steps: half the gain
    const RebalanceDecision untilNext { trigger.decide() };
    CHECK(untilNext.horizon == 50);
    CHECK(untilNext.gainSeconds == Approx(gainByHand / 2).margin(1e-12));
    CHECK(untilNext.rebalance == (p > 4)); // 0.05 s x (p - 1) against 0.16 s

    // a window of 2 intervals: 1 ms and 3 ms x (r + 1) per step over 20 steps each average to
    // 2 ms x (r + 1), as above
    RebalanceTrigger windowed(
        env, { .costEstimate = 0.05, .window = 2, .nodeCores = aCorePerRank }
    );
    windowed.addInterval(0.5, 7); // forgotten: beyond the window
    windowed.addInterval(0.02 * (env.rank() + 1), 20);
    windowed.addInterval(0.06 * (env.rank() + 1), 20);
    CHECK(windowed.decide(100).gainSeconds == Approx(gainByHand).margin(1e-12));
}

TEST_CASE("RebalanceTrigger: ranks with different inputs all take the same decision")
{
    const mpi::MPIEnvironment env;
    const int r { env.rank() };
    const int p { env.sizeRank() };
    // every rank its own work and estimate; the decision takes the largest estimate, 0.1 s x p
    RebalanceTrigger trigger(env, { .costEstimate = 0.1 * (r + 1), .nodeCores = aCorePerRank });
    trigger.addInterval(0.013 * (r * r + 1) + 0.0007 * r, 10);
    const RebalanceDecision d { trigger.decide(40) };
    CHECK(agreed(d, env));
    CHECK(d.costSeconds == Approx(0.1 * p));
    // a cost measured on one rank only (the others pass 0): the largest is taken everywhere
    trigger.rebalanced(r == p - 1 ? 0.25 : 0.0);
    trigger.addInterval(0.003 * (p - r), 10);
    const RebalanceDecision after { trigger.decide(1000) };
    CHECK(agreed(after, env));
    CHECK(after.costSeconds == Approx(0.25));
    // by hand: max 0.3p ms per step, mean 0.15 (p + 1) ms, gain (0.15p - 0.15) ms x 1000
    CHECK(after.gainSeconds == Approx(0.15 * (p - 1)).margin(1e-12));
    CHECK(after.rebalance == (p > 2)); // 0.15 s (2 ranks) does not exceed 0.25 s
}

TEST_CASE("RebalanceTrigger: the horizon extends while the imbalance persists, up to the limit")
{
    const mpi::MPIEnvironment env;
    const int p { env.sizeRank() };
    // rank 0 works 3 ms per step, the others 1 ms, over intervals of 40 steps: max - mean is
    // 3 - (3 + (p - 1)) / p = 2 (p - 1) / p ms per step, by hand
    const double imbalance { 0.002 * (p - 1) / p };
    const double work { env.rank() == 0 ? 0.12 : 0.04 };
    RebalanceTrigger trigger(
        env, { .costEstimate = 1.0, .extendWhilePersisting = true, .nodeCores = aCorePerRank }
    );
    for (int i { 1 }; i <= 4; ++i)
    {
        trigger.addInterval(work, 40);
        const RebalanceDecision d { trigger.decide(100) };
        CHECK(agreed(d, env));
        // 40 i steps of imbalance so far: the horizon is at least that many steps
        CHECK(d.persistedSteps == (p > 1 ? 40 * i : 0));
        CHECK(d.horizon == (p > 1 ? std::max(100, 40 * i) : 100));
        CHECK(d.gainSeconds == Approx(imbalance * d.horizon).margin(1e-12));
    }
    // a limit (the steps left) caps the extended horizon
    trigger.addInterval(work, 40);
    const RebalanceDecision capped { trigger.decide(100, 150) };
    CHECK(capped.horizon == (p > 1 ? 150 : 100));
    // an interval with a quarter of the imbalance: the earlier ones (4 times it) still count,
    // an interval with 4 times the imbalance: the earlier ones (a quarter) do not
    trigger.addInterval(env.rank() == 0 ? 0.06 : 0.04, 40); // 1.5 ms against 1 ms
    CHECK(trigger.decide(100).persistedSteps == (p > 1 ? 240 : 0));
    trigger.addInterval(env.rank() == 0 ? 0.12 : 0.04, 40);
    CHECK(trigger.decide(100).persistedSteps == (p > 1 ? 40 : 0));
    // a rebalance forgets the history
    trigger.rebalanced(0.5);
    trigger.addInterval(work, 40);
    CHECK(trigger.decide(100).persistedSteps == (p > 1 ? 40 : 0));
    // without the option the horizon stays the one given
    RebalanceTrigger fixed(env, { .costEstimate = 1.0, .nodeCores = aCorePerRank });
    for (int i { 1 }; i <= 4; ++i)
    {
        fixed.addInterval(work, 40);
        CHECK(fixed.decide(100).horizon == 100);
    }
    if (p > 1)
    {
        REQUIRE_THROWS_WITH(
            (void)fixed.decide(100, env.rank() == 0 ? 10 : 20), Catch::Contains("limit 10 to 20")
        );
    }
    REQUIRE_THROWS_WITH((void)fixed.decide(100, -1), Catch::Contains("a horizon or a limit < 0"));
}

TEST_CASE("RebalanceTrigger: ranks that share cores gain only from a node's excess work")
{
    const mpi::MPIEnvironment env;
    const int p { env.sizeRank() }; // the test's ranks run on one node
    // every rank on one core: a step takes the whole work however it is spread, so no
    // partition gains (step now = sum = step balanced), however unequal the work
    RebalanceTrigger oneCore(env, { .costEstimate = 0.0, .nodeCores = 1 });
    oneCore.addInterval(0.001 * (env.rank() * env.rank() + 1), 10);
    const RebalanceDecision none { oneCore.decide(100) };
    CHECK(agreed(none, env));
    CHECK(none.gainSeconds == Approx(0.0).margin(1e-12));
    CHECK_FALSE(none.rebalance);
    // two cores, rank 0 works (p + 1) ms per step and the others 1 ms: by hand, step now =
    // max(p + 1, 2p / 2) = p + 1 ms (one rank: 2 ms), step balanced = mean 2 ms x max(1, p / 2)
    // = max(2, p) ms, so the gain is 1 ms per step on 2 ranks or more, 0 on one
    RebalanceTrigger twoCores(env, { .costEstimate = 0.0, .nodeCores = 2 });
    twoCores.addInterval(0.001 * (env.rank() == 0 ? p + 1 : 1) * 10, 10);
    const RebalanceDecision d { twoCores.decide(100) };
    CHECK(agreed(d, env));
    CHECK(d.stepNow == Approx(0.001 * (p == 1 ? 2 : p + 1)));
    CHECK(d.stepBalanced == Approx(0.001 * std::max(2, p)));
    CHECK(d.gainSeconds == Approx(p == 1 ? 0.0 : 0.1).margin(1e-12));
    CHECK(d.rebalance == (p > 1));
    REQUIRE_THROWS_AS(RebalanceTrigger(env, { .nodeCores = -1 }), Error);
}

TEST_CASE("RebalanceTrigger errors: a rank with no interval or other steps is named everywhere")
{
    const mpi::MPIEnvironment env;
    const int last { env.sizeRank() - 1 };
    RebalanceTrigger trigger(env);
    if (env.rank() != last)
    {
        trigger.addInterval(1.0, 10);
    }
    REQUIRE_THROWS_WITH(
        (void)trigger.decide(10),
        Catch::Contains("rank " + std::to_string(last) + " has recorded no interval")
    );
    trigger.addInterval(1.0, env.rank() == last ? 11 : 10);
    if (env.sizeRank() > 1)
    {
        REQUIRE_THROWS_WITH((void)trigger.decide(10), Catch::Contains("steps recorded 10 to 11"));
    }
    REQUIRE_THROWS_AS(trigger.addInterval(-1.0, 10), Error);
    REQUIRE_THROWS_AS(trigger.rebalanced(-0.5), Error);
    REQUIRE_THROWS_AS(RebalanceTrigger(env, { .window = 0 }), Error);
}

TEST_CASE("RebalanceTrigger in a solver's loop: rebalances when the growing imbalance pays")
{
    // Rank 0's work per step grows by 0.2 ms each interval after a rebalance (j intervals:
    // 1 + 0.2 j ms; the others 1 ms). Over a horizon of 500 steps the gain is
    // 0.2 j ms x (p - 1) / p x 500 = 0.1 j (p - 1) / p s, against 0.12 s: by hand, 2 ranks
    // rebalance when j = 3 (0.15 s), 3 and more when j = 2 (0.133 s and more), 1 rank never.
    // Over 9 intervals: 3 rebalances on 2 ranks, 4 on more, 0 on one.
    const mpi::MPIEnvironment env;
    const int p { env.sizeRank() };
    const double setUpSeconds { 0.12 };
    const int nIntervals { 9 };
    int sinceRebalance { 0 };
    int rebalances { 0 };
    const auto computeInterval = [&](int /*interval*/)
    {
        ++sinceRebalance;
        return 50 * (env.rank() == 0 ? 0.001 + 0.0002 * sinceRebalance : 0.001);
    };
    const auto rebalanceNow = [&]
    {
        sinceRebalance = 0;
        ++rebalances;
        return 0.12; // the measured cost of this rebalance
    };
    const int coresPerNode { aCorePerRank }; // 0 (the default): found from the CPU affinity
    // [rebalance-trigger]
    partition::RebalanceTrigger trigger(
        env, { .costEstimate = setUpSeconds, .nodeCores = coresPerNode }
    );
    for (int interval { 0 }; interval < nIntervals; ++interval)
    {
        const double work { computeInterval(interval) }; // this rank's, threadCpuSeconds()
        trigger.addInterval(work, 50);                   // 50 steps per interval
        if (trigger.decide(500).rebalance)               // the gain over 500 steps pays
        {
            trigger.rebalanced(rebalanceNow()); // Rebalancer::rebalance(), its measured cost
        }
    }
    // [rebalance-trigger]
    CHECK(rebalances == (p == 1 ? 0 : p == 2 ? 3 : 4));
}
