// SPDX-License-Identifier: MIT
// HaloBuilder's pass over the local adjacency (src/partition/adjacencyScan.*), both kernels: on
// symmetric graphs (grids, random graphs with cells of 0 to more than 8 neighbours) with entries
// owned elsewhere (negative) mixed in, the symmetry sum is zero and the boundary cells are those
// with a negative entry (found here by a plain loop); one edge taken
// out always makes the sum non-zero; and no two missing edges cancel on the grids of
// doc/partitioning.md's claim (the largest in a hidden test case, "[.exhaustive]"). Local, so every
// rank runs it alone.
#include "fieldsync_test/catch.hpp"

#include "partition/adjacencyScan.hpp"
#include "testGraphs.hpp"

#include <algorithm>
#include <random>
#include <vector>

using namespace fieldsync;
using namespace fieldsync::partition;

namespace
{
/** @brief A local adjacency in CSR form, entries local indices (negative: not owned). */
struct LocalGraph
{
    std::vector<std::size_t> offsets { 0 }; /**< CSR offsets */
    std::vector<LocalIndex> local;          /**< entries */
};

/** @brief @p g (ids 0 .. n-1 as local indices) with about one negative entry in @p ghostEvery
 * entries inserted at random places (none when 0), seeded. */
LocalGraph withGhosts(const CellGraph& g, int ghostEvery, unsigned seed)
{
    std::mt19937 gen(seed);
    std::uniform_int_distribution<int> pick(0, std::max(ghostEvery - 1, 0));
    LocalGraph out;
    for (std::size_t i { 0 }; i < g.nCells(); ++i)
    {
        for (const GlobalIndex n : g.neighbours(i))
        {
            if (ghostEvery > 0 && pick(gen) == 0)
            {
                out.local.push_back(-1 - pick(gen)); // any negative value
            }
            out.local.push_back(static_cast<LocalIndex>(n));
        }
        if (ghostEvery > 0 && pick(gen) == 0)
        {
            out.local.push_back(-1);
        }
        out.offsets.push_back(out.local.size());
    }
    return out;
}

/** @brief The cells with a negative entry, by a plain loop. */
std::vector<LocalIndex> negativeCells(const LocalGraph& g)
{
    std::vector<LocalIndex> cells;
    for (std::size_t i { 0 }; i + 1 < g.offsets.size(); ++i)
    {
        if (std::any_of(
                g.local.begin() + static_cast<std::ptrdiff_t>(g.offsets[i]),
                g.local.begin() + static_cast<std::ptrdiff_t>(g.offsets[i + 1]),
                [](LocalIndex j) { return j < 0; }
            ))
        {
            cells.push_back(static_cast<LocalIndex>(i));
        }
    }
    return cells;
}

constexpr ScanKernel kernels[] { ScanKernel::Best, ScanKernel::Portable };

/** @brief Requires a zero sum and the plain loop's boundary cells from both kernels. */
void requireSymmetric(const LocalGraph& g)
{
    const std::vector<LocalIndex> expected { negativeCells(g) };
    for (const ScanKernel kernel : kernels)
    {
        std::vector<LocalIndex> boundary;
        REQUIRE(scanCells(g.offsets, g.local, boundary, kernel) == 0);
        REQUIRE(boundary == expected);
    }
}
} // namespace

TEST_CASE("adjacencyScan: symmetric graphs sum to zero; boundary cells are those with a ghost")
{
    INFO("vector kernel on this CPU: " << vectorScanAvailable());
    requireSymmetric(withGhosts(test::grid(9, 7, 5), 0, 1));
    requireSymmetric(withGhosts(test::grid(9, 7, 5), 5, 2));
    requireSymmetric(withGhosts(test::grid(31, 3), 3, 3));
    // cells of 0 to 20 neighbours: the vector kernel's long-cell path and empty cells
    for (unsigned seed { 0 }; seed < 6; ++seed)
    {
        requireSymmetric(
            withGhosts(test::randomGraph(97 + static_cast<int>(seed), 400, seed), 4, seed)
        );
    }
    requireSymmetric(withGhosts(test::ring(3), 2, 7)); // fewer entries than one register
    requireSymmetric(LocalGraph {});
}

TEST_CASE("adjacencyScan: every single missing edge makes the sum non-zero")
{
    const CellGraph g { test::grid(6, 5, 4) };
    const LocalGraph full { withGhosts(g, 6, 11) };
    for (std::size_t e { 0 }; e < full.local.size(); ++e)
    {
        if (full.local[e] < 0)
        {
            continue;
        }
        LocalGraph cut { full };
        cut.local.erase(cut.local.begin() + static_cast<std::ptrdiff_t>(e));
        for (std::size_t i { 0 }; i + 1 < cut.offsets.size(); ++i)
        {
            if (cut.offsets[i + 1] > e)
            {
                --cut.offsets[i + 1];
            }
        }
        std::vector<std::uint64_t> sums;
        for (const ScanKernel kernel : kernels)
        {
            std::vector<LocalIndex> boundary;
            sums.push_back(scanCells(cut.offsets, cut.local, boundary, kernel));
            REQUIRE(sums.back() != 0);
            REQUIRE(boundary == negativeCells(cut));
        }
        REQUIRE(sums[0] == sums[1]);
    }
}

namespace
{
/**
 * @brief Requires that no two missing edges of @p g cancel: the term of one would be minus the
 * other's, that is equal to the other's reverse term, so no two directed edges other than an
 * edge and its reverse (the same edge) may have equal terms; and that no term is zero and each
 * edge's reverse term is its negative.
 */
void requireNoTwoCancel(const CellGraph& g)
{
    std::vector<std::uint64_t> terms;
    std::size_t zero { 0 };
    std::size_t notAntisymmetric { 0 };
    for (std::size_t i { 0 }; i < g.nCells(); ++i)
    {
        for (const GlobalIndex n : g.neighbours(i))
        {
            const auto a = static_cast<std::uint32_t>(i);
            const auto b = static_cast<std::uint32_t>(n);
            const std::uint64_t term { edgeTerm(a, b) };
            zero += term == 0 ? 1 : 0;
            notAntisymmetric += addTerms(term, edgeTerm(b, a)) != 0 ? 1 : 0;
            terms.push_back(term);
        }
    }
    std::sort(terms.begin(), terms.end());
    INFO(g.nCells() << " cells, " << terms.size() << " directed edges");
    REQUIRE(!terms.empty());
    REQUIRE(zero == 0);
    REQUIRE(notAntisymmetric == 0);
    REQUIRE(std::adjacent_find(terms.begin(), terms.end()) == terms.end());
}
} // namespace

TEST_CASE("adjacencyScan: no two missing edges cancel on 3-D grids up to 32^3 and a 2-D grid")
{
    for (const int n : { 4, 8, 16, 32 })
    {
        requireNoTwoCancel(test::grid(n, n, n));
    }
    requireNoTwoCancel(test::grid(200, 150));
}

// the larger grids of doc/partitioning.md's claim (a few seconds): run with "[.exhaustive]"
TEST_CASE("adjacencyScan: no two missing edges cancel on the large grids", "[.exhaustive]")
{
    for (const int n : { 48, 64, 96 })
    {
        requireNoTwoCancel(test::grid(n, n, n));
    }
    requireNoTwoCancel(test::grid(696, 696));
}
