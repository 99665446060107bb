// SPDX-License-Identifier: MIT
// GraphTopology: a weighted ring, read back from MPI, with and without renumbering.
#include "fieldsync_test/catch.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/mpi/graphTopology.hpp"

#include <span>
#include <vector>

namespace fm = fieldsync::mpi;

namespace
{
/** @brief A directed ring: receive from the left, send to the right, weight 10 * rank + 1. */
fm::GraphTopology ring(const fm::MPIEnvironment& env, const fm::Reordering& reordering)
{
    const int n = env.sizeRank();
    const int left = (env.rank() + n - 1) % n;
    const int right = (env.rank() + 1) % n;
    return fm::GraphTopology(
        env, { left }, { 10 * left + 1 }, { right }, { 10 * env.rank() + 1 }, reordering
    );
}

std::vector<int> asVector(std::span<const int> s)
{
    return { s.begin(), s.end() };
}
} // namespace

TEST_CASE("GraphTopology: neighbours and weights are read back as given", "[topology]")
{
    fm::MPIEnvironment env;
    const int n = env.sizeRank();
    const fm::GraphTopology graph = ring(env, {});
    CHECK_FALSE(graph.reordered());
    CHECK(graph.environment().rank() == env.rank());
    const int left = (env.rank() + n - 1) % n;
    CHECK(asVector(graph.sources()) == std::vector<int> { left });
    CHECK(asVector(graph.sourceWeights()) == std::vector<int> { 10 * left + 1 });
    CHECK(asVector(graph.destinations()) == std::vector<int> { (env.rank() + 1) % n });
    CHECK(asVector(graph.destinationWeights()) == std::vector<int> { 10 * env.rank() + 1 });
}

TEST_CASE("GraphTopology: renumbered neighbours follow rankMapping()", "[topology]")
{
    fm::MPIEnvironment env;
    const int n = env.sizeRank();
    const auto check = [&](const fm::GraphTopology& graph)
    {
        const auto map = graph.rankMapping();
        const auto at = [&](int old)
        {
            return map[static_cast<std::size_t>(old)];
        };
        CHECK(graph.environment().rank() == at(env.rank()));
        CHECK(asVector(graph.sources()) == std::vector<int> { at((env.rank() + n - 1) % n) });
        CHECK(asVector(graph.destinations()) == std::vector<int> { at((env.rank() + 1) % n) });
        CHECK(asVector(graph.destinationWeights()) == std::vector<int> { 10 * env.rank() + 1 });
    };
    check(ring(env, true));
    const fm::GraphTopology reversed = ring(env, [n](int r) { return n - 1 - r; });
    CHECK(reversed.environment().rank() == n - 1 - env.rank());
    CHECK(reversed.reordered() == (n > 1));
    check(reversed);
}

TEST_CASE("GraphTopology: bad arguments are Errors", "[topology]")
{
    fm::MPIEnvironment env;
    const int n = env.sizeRank();
    CHECK_THROWS_WITH(fm::GraphTopology(env, { 0 }, {}, {}, {}), Catch::Contains("0 weights"));
    CHECK_THROWS_WITH(
        fm::GraphTopology(env, {}, {}, { n }, { 1 }), Catch::Contains("out of range")
    );
    CHECK_THROWS_WITH(
        fm::GraphTopology(env, { 0 }, { -1 }, {}, {}), Catch::Contains("negative weight")
    );
}
