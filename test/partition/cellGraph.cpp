// SPDX-License-Identifier: MIT
// CellGraph, Partition and MetisPartitioner: structure, checks and partition quality.
#include "fieldsync_test/catch.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/partition/metisPartitioner.hpp"
#include "fieldsync/partition/partition.hpp"
#include "testGraphs.hpp"

#include <string>

using namespace fieldsync;
using namespace fieldsync::partition;

namespace
{
bool mentions(const Error& e, const std::string& text)
{
    return std::string(e.what()).find(text) != std::string::npos;
}
} // namespace

TEST_CASE("CellGraph: CSR access and structural checks")
{
    const CellGraph g { test::grid(4, 3) };
    REQUIRE(g.nCells() == 12);
    REQUIRE(g.isGlobal());
    // cell 5 = (1,1): neighbours 1, 4, 6, 9
    const auto n = g.neighbours(5);
    REQUIRE(
        std::vector<GlobalIndex>(n.begin(), n.end()) == std::vector<GlobalIndex> { 1, 4, 6, 9 }
    );
    REQUIRE_NOTHROW(g.checkSymmetric());

    REQUIRE_THROWS_AS(CellGraph({ 0, 1 }, { 0, 1 }, { 1 }), Error);       // offsets too short
    REQUIRE_THROWS_AS(CellGraph({ 0, 1 }, { 0, 1, 3 }, { 1, 0 }), Error); // end != adjacency size
    try
    {
        (void)CellGraph({ 0, -4 }, { 0, 1, 2 }, { 1, 0 });
        FAIL("negative id accepted");
    }
    catch (const Error& e)
    {
        REQUIRE(mentions(e, "-4"));
    }
    try
    {
        (void)CellGraph({ 0, 7 }, { 0, 1, 2 }, { 7, 7 });
        FAIL("self neighbour accepted");
    }
    catch (const Error& e)
    {
        REQUIRE(mentions(e, "cell 7 lists itself"));
    }
}

TEST_CASE("CellGraph: asymmetric graph and unknown neighbour name the cell")
{
    // 0-1-2 path, but cell 2 does not list 1
    const CellGraph asym { CellGraph::global({ 0, 1, 3, 3 }, { 1, 0, 2 }) };
    try
    {
        asym.checkSymmetric();
        FAIL("asymmetric graph accepted");
    }
    catch (const Error& e)
    {
        REQUIRE(mentions(e, "cell 1 lists neighbour 2"));
    }
    const CellGraph outside { CellGraph::global({ 0, 1, 3 }, { 1, 0, 9 }) };
    try
    {
        outside.checkSymmetric();
        FAIL("unknown neighbour accepted");
    }
    catch (const Error& e)
    {
        REQUIRE(mentions(e, "cell 1 has neighbour 9"));
    }
}

TEST_CASE("Partition: user vectors are checked")
{
    const CellGraph g { test::grid(3, 3) };
    const Partition ok({ 0, 0, 1, 1, 2, 2, 0, 1, 2 }, 3);
    REQUIRE_NOTHROW(ok.checkFits(g));
    REQUIRE(ok.partOf(4) == 2);
    try
    {
        (void)Partition({ 0, 1, 3, 0 }, 3);
        FAIL("part out of range accepted");
    }
    catch (const Error& e)
    {
        REQUIRE(mentions(e, "cell 2 has part 3"));
    }
    REQUIRE_THROWS_AS(Partition({ 0, -1 }, 2), Error);
    REQUIRE_THROWS_AS(Partition({ 0 }, 0), Error);
    try
    {
        Partition({ 0, 1 }, 2).checkFits(g);
        FAIL("wrong length accepted");
    }
    catch (const Error& e)
    {
        REQUIRE(mentions(e, "2 entries but the graph has 9 cells"));
    }
    const Partition blocks { Partition::block(10, 3) };
    REQUIRE(
        std::vector<int>(blocks.parts().begin(), blocks.parts().end()) ==
        std::vector<int> { 0, 0, 0, 0, 1, 1, 1, 2, 2, 2 }
    );
}

#if FIELDSYNC_HAVE_METIS
TEST_CASE("MetisPartitioner: balanced, deterministic, small cut")
{
    const CellGraph g { test::grid(40, 40) };
    for (const int nParts : { 1, 2, 3, 4, 7 })
    {
        const Partition a { MetisPartitioner(5).partition(g, nParts) };
        const Partition b { MetisPartitioner(5).partition(g, nParts) };
        REQUIRE(std::equal(a.parts().begin(), a.parts().end(), b.parts().begin()));
        std::vector<std::size_t> sizes(static_cast<std::size_t>(nParts), 0);
        std::size_t cut { 0 };
        for (std::size_t i { 0 }; i < g.nCells(); ++i)
        {
            sizes[static_cast<std::size_t>(a.partOf(i))] += 1;
            for (const GlobalIndex n : g.neighbours(i))
            {
                cut += a.partOf(i) != a.partOf(static_cast<std::size_t>(n)) ? 1 : 0;
            }
        }
        for (const std::size_t s : sizes)
        {
            // METIS's default imbalance tolerance is 3%
            REQUIRE(static_cast<double>(s) <= 1.04 * 1600.0 / nParts + 1.0);
        }
        // a k-way cut of a 40x40 grid needs ~40*(k-1)..80*k edge ends; random would be ~3000
        REQUIRE(cut / 2 <= static_cast<std::size_t>(80 * nParts));
    }
    const CellGraph asym { CellGraph::global({ 0, 1, 3, 3 }, { 1, 0, 2 }) };
    REQUIRE_THROWS_AS(MetisPartitioner().partition(asym, 2), Error);
    REQUIRE_THROWS_AS(MetisPartitioner().partition(g, 0), Error);
}
#endif
