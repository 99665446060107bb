// SPDX-License-Identifier: MIT
// reorder(env, mapping): a naming scheme applied as a function, checked to be a permutation.
#include "fieldsync_test/catch.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/mpi/reordering.hpp"

#include <vector>

namespace fm = fieldsync::mpi;

TEST_CASE("reorder: a permutation renumbers the ranks", "[reorder]")
{
    fm::MPIEnvironment env;
    const int n = env.sizeRank();
    const fm::MPIEnvironment reversed = fm::reorder(env, [n](int r) { return n - 1 - r; });
    CHECK(reversed.rank() == n - 1 - env.rank());
    CHECK(reversed.sizeRank() == n);

    std::vector<int> shifted(static_cast<std::size_t>(n));
    for (int r = 0; r < n; ++r)
    {
        shifted[static_cast<std::size_t>(r)] = (r + 1) % n;
    }
    CHECK(fm::reorder(env, shifted).rank() == (env.rank() + 1) % n);
    CHECK(fm::gatherRankMapping(env, [](int r) { return r; }).size() == std::size_t(n));
}

TEST_CASE("reorder: a mapping that is no permutation is an Error on every rank", "[reorder]")
{
    fm::MPIEnvironment env;
    const int n = env.sizeRank();
    CHECK_THROWS_WITH(
        fm::reorder(env, [](int r) { return r + 1; }),
        Catch::Contains("not a permutation") && Catch::Contains("maps to " + std::to_string(n)) &&
            Catch::Contains("out of range")
    );
    CHECK_THROWS_WITH(
        fm::reorder(env, [](int r) { return -r - 1; }), Catch::Contains("old rank 0 maps to -1")
    );
    if (n > 1)
    {
        CHECK_THROWS_WITH(
            fm::reorder(env, [](int) { return 0; }),
            Catch::Contains("old ranks 0 and 1 both map to new rank 0")
        );
        // a vector too short for the communicator: the missing ranks map out of range
        CHECK_THROWS_WITH(
            fm::reorder(env, std::vector<int> { 0 }), Catch::Contains("out of range")
        );
    }
    CHECK_THROWS_WITH(fm::reorder(env, std::function<int(int)> {}), Catch::Contains("empty"));
}

TEST_CASE("Reordering: bool, vector and function convert to the right kind", "[reorder]")
{
    CHECK(fm::Reordering().kind() == fm::Reordering::Kind::None);
    CHECK(fm::Reordering(true).kind() == fm::Reordering::Kind::Mpi);
    CHECK(fm::Reordering(false).kind() == fm::Reordering::Kind::None);
    CHECK(fm::Reordering(std::vector<int> { 1, 0 }).mapping()(0) == 1);
    CHECK(fm::Reordering([](int r) { return r; }).kind() == fm::Reordering::Kind::Mapping);
}
