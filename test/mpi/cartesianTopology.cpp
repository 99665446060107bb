// SPDX-License-Identifier: MIT
// CartesianTopology: naming scheme both ways, shifts at the edges, neighbourhoods by formula, a
// user mapping instead of MPI's reorder flag.
#include "fieldsync_test/catch.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/mpi/cartesianTopology.hpp"

#include <cstddef>
#include <cstdlib>
#include <string>
#include <vector>

namespace fm = fieldsync::mpi;

namespace
{
/** @brief The number of neighbours of @p topo's own rank, counted independently of MPI. */
std::size_t expectedNeighbours(const fm::CartesianTopology& topo, bool diagonals)
{
    std::size_t faces { 0 };
    std::size_t all { 1 };
    for (int d = 0; d < topo.ndims(); ++d)
    {
        const int c = topo.coords()[static_cast<std::size_t>(d)];
        const int n = topo.dims()[static_cast<std::size_t>(d)];
        // offsets -1 and +1 that stay on the grid (both always, periodic: duplicates kept)
        const std::size_t off = topo.periodic(d) ? 2 : std::size_t(c > 0) + std::size_t(c < n - 1);
        faces += off;
        all *= off + 1;
    }
    return diagonals ? all - 1 : faces;
}

/** @brief Grids to test on any number of ranks: 1, 2 and 3 dimensions, MPI-chosen sizes. */
std::vector<std::vector<int>> gridShapes()
{
    return { { 0 }, { 0, 0 }, { 0, 0, 0 } };
}
} // namespace

TEST_CASE("CartesianTopology: coords and rank are inverse", "[topology]")
{
    fm::MPIEnvironment env;
    for (const auto& shape : gridShapes())
    {
        for (const bool periodic : { false, true })
        {
            fm::CartesianTopology topo(env, shape, std::vector<bool>(shape.size(), periodic));
            int product { 1 };
            for (const int d : topo.dims())
            {
                product *= d;
            }
            REQUIRE(product == env.sizeRank());
            for (int r = 0; r < env.sizeRank(); ++r)
            {
                CHECK(topo.rank(topo.coords(r)) == r);
            }
            CHECK(
                topo.coords(topo.environment().rank()) ==
                std::vector<int>(topo.coords().begin(), topo.coords().end())
            );
            CHECK_THROWS_AS((void)topo.coords(env.sizeRank()), fieldsync::Error);
            CHECK_THROWS_AS(
                (void)topo.rank(std::vector<int>(shape.size() + 1, 0)), fieldsync::Error
            );
        }
    }
}

TEST_CASE("CartesianTopology: off-grid coordinates wrap or give MPI_PROC_NULL", "[topology]")
{
    fm::MPIEnvironment env;
    const int n = env.sizeRank();
    fm::CartesianTopology open(env, { n, 1 }, { false, false });
    fm::CartesianTopology ring(env, { n, 1 }, { true, false });
    CHECK(open.rank(std::vector<int> { -1, 0 }) == MPI_PROC_NULL);
    CHECK(open.rank(std::vector<int> { n, 0 }) == MPI_PROC_NULL);
    CHECK(ring.rank(std::vector<int> { -1, 0 }) == ring.rank(std::vector<int> { n - 1, 0 }));
    CHECK(ring.rank(std::vector<int> { n + 2, 0 }) == ring.rank(std::vector<int> { 2 % n, 0 }));
    CHECK(ring.rank(std::vector<int> { 0, 1 }) == MPI_PROC_NULL); // dimension 1 is not periodic
}

TEST_CASE("CartesianTopology: shift at the edges, with and without periodicity", "[topology]")
{
    fm::MPIEnvironment env;
    const int n = env.sizeRank();
    for (const bool periodic : { false, true })
    {
        fm::CartesianTopology topo(env, { n }, { periodic });
        const int c = topo.coords()[0];
        for (const int disp : { 1, 2, -1 })
        {
            const auto s = topo.shift(0, disp);
            const auto expect = [&](int at)
            {
                if (periodic)
                {
                    return topo.rank(std::vector<int> { ((at % n) + n) % n });
                }
                return at < 0 || at >= n ? MPI_PROC_NULL : topo.rank(std::vector<int> { at });
            };
            CHECK(s.source == expect(c - disp));
            CHECK(s.dest == expect(c + disp));
        }
        if (!periodic && c == 0)
        {
            CHECK(topo.shift(0, 1).source == MPI_PROC_NULL);
        }
        if (!periodic && c == n - 1)
        {
            CHECK(topo.shift(0, 1).dest == MPI_PROC_NULL);
        }
    }
    fm::CartesianTopology topo(env, { n }, { false });
    CHECK_THROWS_AS((void)topo.shift(1, 1), fieldsync::Error);
}

TEST_CASE("CartesianTopology: neighbours with and without diagonals", "[topology]")
{
    fm::MPIEnvironment env;
    CHECK(fm::CartesianTopology::neighbourOffsets(3, true).size() == 26);
    CHECK(fm::CartesianTopology::neighbourOffsets(3, false).size() == 6);
    CHECK(fm::CartesianTopology::neighbourOffsets(2, true).front() == std::vector<int> { -1, -1 });
    for (const auto& shape : gridShapes())
    {
        for (const bool periodic : { false, true })
        {
            fm::CartesianTopology topo(env, shape, std::vector<bool>(shape.size(), periodic));
            for (const bool diagonals : { false, true })
            {
                const auto ranks = topo.neighbours(diagonals);
                CHECK(ranks.size() == expectedNeighbours(topo, diagonals));
                for (const int r : ranks)
                {
                    CHECK((r >= 0 && r < env.sizeRank()));
                }
            }
        }
    }
}

TEST_CASE("CartesianTopology: dims that do not fit are an Error", "[topology]")
{
    fm::MPIEnvironment env;
    const int n = env.sizeRank();
    CHECK_THROWS_WITH(fm::CartesianTopology(env, { n + 1 }), Catch::Contains("do not fit"));
    CHECK_THROWS_WITH(fm::CartesianTopology(env, {}), Catch::Contains("dims is empty"));
    CHECK_THROWS_WITH(
        fm::CartesianTopology(env, { n }, { true, false }), Catch::Contains("2 periodic flags")
    );
    if (n > 1)
    {
        CHECK_THROWS_WITH(fm::CartesianTopology(env, { n + 1, 0 }), Catch::Contains("do not fit"));
    }
}

TEST_CASE("CartesianTopology: MPI's reorder keeps a consistent naming scheme", "[topology]")
{
    fm::MPIEnvironment env;
    fm::CartesianTopology topo(env, { 0, 0 }, { true, true }, true);
    std::vector<int> seen(static_cast<std::size_t>(env.sizeRank()), 0);
    for (const int r : topo.rankMapping())
    {
        ++seen.at(static_cast<std::size_t>(r));
    }
    CHECK(seen == std::vector<int>(seen.size(), 1));
    CHECK(topo.rankMapping()[static_cast<std::size_t>(env.rank())] == topo.environment().rank());
    for (int r = 0; r < env.sizeRank(); ++r)
    {
        CHECK(topo.rank(topo.coords(r)) == r);
    }
}

// [grouping-mapping]
// Old ranks 4t..4t+3 (say, one node each) become one 2x2 tile of a 2 x (n/2) grid, so the
// four talk to each other the most: old rank r -> the grid rank of x = s / 2, y = 2 t + s % 2.
int groupInTiles(int oldRank, int nRanks)
{
    const int t = oldRank / 4;
    const int s = oldRank % 4;
    return (s / 2) * (nRanks / 2) + 2 * t + s % 2;
}
// [grouping-mapping]

TEST_CASE("CartesianTopology: a user mapping groups neighbouring blocks", "[topology]")
{
    fm::MPIEnvironment env;
    const int n = env.sizeRank();
    if (n % 4 != 0)
    {
        // any permutation: reverse the ranks on a line
        fm::CartesianTopology line(env, { n }, {}, [n](int r) { return n - 1 - r; });
        CHECK(line.environment().rank() == n - 1 - env.rank());
        CHECK(line.rankMapping()[0] == n - 1);
        return;
    }
    // [grouping-topology]
    fm::CartesianTopology topo(env, { 2, n / 2 }, {}, [n](int r) { return groupInTiles(r, n); });
    // [grouping-topology]
    CHECK(topo.environment().rank() == groupInTiles(env.rank(), n));
    const int tileStart = env.rank() / 4 * 4;
    for (int other = tileStart; other < tileStart + 4; ++other)
    {
        const auto a = topo.coords(topo.rankMapping()[static_cast<std::size_t>(other)]);
        const auto b = topo.coords();
        CHECK(std::abs(a[0] - b[0]) <= 1);
        CHECK(std::abs(a[1] - b[1]) <= 1);
    }
}
