// SPDX-License-Identifier: MIT
// Every bad input of the distributed halo builder and the scatter path is a fieldsync::Error
// on every rank (so no rank is left waiting), and the rank that sees it names the cell.
#include "fieldsync_test/catch.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"
#include "fieldsync/partition/distributedGraph.hpp"
#include "fieldsync/partition/haloBuilder.hpp"
#include "testGraphs.hpp"

#include <algorithm>
#include <functional>
#include <string>
#include <utility>

using namespace fieldsync;
using namespace fieldsync::partition;

namespace
{
/**
 * @brief Runs @p action on every rank, requires an Error on every rank, and requires that at
 * least one rank's message contains @p text.
 */
void requireErrorEverywhere(const std::function<void()>& action, const std::string& text)
{
    int threw { 0 };
    int named { 0 };
    std::string message;
    try
    {
        action();
    }
    catch (const Error& e)
    {
        threw = 1;
        message = e.what();
        named = message.find(text) != std::string::npos ? 1 : 0;
    }
    int everyone { 0 };
    MPI_Allreduce(&threw, &everyone, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &named, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    INFO("this rank's error: " << message);
    INFO("expected an error naming: " << text);
    REQUIRE(everyone == 1);
    REQUIRE(named == 1);
}

/** @brief A whole-mesh graph @p g with the neighbour list of cell @p a changed by @p edit. */
CellGraph withList(
    const CellGraph& g, GlobalIndex a, const std::function<void(std::vector<GlobalIndex>&)>& edit
)
{
    std::vector<std::vector<GlobalIndex>> lists;
    for (std::size_t i { 0 }; i < g.nCells(); ++i)
    {
        const auto n = g.neighbours(i);
        lists.emplace_back(n.begin(), n.end());
        if (static_cast<GlobalIndex>(i) == a)
        {
            edit(lists.back());
        }
    }
    return test::fromLists(lists);
}

/** @brief Removes @p b from the neighbour list of @p a in a whole-mesh graph. */
CellGraph withoutEdge(const CellGraph& g, GlobalIndex a, GlobalIndex b)
{
    return withList(g, a, [b](std::vector<GlobalIndex>& list) { std::erase(list, b); });
}

/** @brief Adds @p b once more to the neighbour list of @p a in a whole-mesh graph. */
CellGraph withExtraEntry(const CellGraph& g, GlobalIndex a, GlobalIndex b)
{
    return withList(g, a, [b](std::vector<GlobalIndex>& list) { list.push_back(b); });
}

/** @brief An edge (a, b) of @p g inside one part of @p p, a < b (the first in id order), or
 * (-1, -1) when every edge is cut. */
std::pair<GlobalIndex, GlobalIndex> insideEdge(const CellGraph& g, const Partition& p)
{
    for (std::size_t i { 0 }; i < g.nCells(); ++i)
    {
        for (const GlobalIndex n : g.neighbours(i))
        {
            if (n > static_cast<GlobalIndex>(i) &&
                p.partOf(i) == p.partOf(static_cast<std::size_t>(n)))
            {
                return { static_cast<GlobalIndex>(i), n };
            }
        }
    }
    return { -1, -1 };
}

/** @brief An edge (a, b) of @p g across the cut, a in part 0 and b in part 1 of @p p. */
std::pair<GlobalIndex, GlobalIndex> cutEdge(const CellGraph& g, const Partition& p)
{
    std::pair<GlobalIndex, GlobalIndex> edge { 0, 0 };
    for (std::size_t i { 0 }; i < g.nCells(); ++i)
    {
        for (const GlobalIndex n : g.neighbours(i))
        {
            if (p.partOf(i) == 0 && p.partOf(static_cast<std::size_t>(n)) == 1)
            {
                edge = { static_cast<GlobalIndex>(i), n };
            }
        }
    }
    return edge;
}

std::vector<int> blocks(std::size_t n, int nRanks)
{
    const Partition p { Partition::block(n, nRanks) };
    return { p.parts().begin(), p.parts().end() };
}
} // namespace

TEST_CASE("HaloBuilder errors: a neighbour no rank owns")
{
    const mpi::MPIEnvironment env;
    const CellGraph g { test::grid(8, 6) };
    const auto parts = blocks(g.nCells(), env.sizeRank());
    // rank 0's first cell gets an extra neighbour 53, beyond the 48 cells
    CellGraph piece { test::ownedPiece(g, parts, env.rank()) };
    if (env.rank() == 0)
    {
        std::vector<std::size_t> offsets(piece.offsets().begin(), piece.offsets().end());
        std::vector<GlobalIndex> adjacency(piece.adjacency().begin(), piece.adjacency().end());
        adjacency.insert(adjacency.begin() + static_cast<std::ptrdiff_t>(offsets[1]), 53);
        for (std::size_t i { 1 }; i < offsets.size(); ++i)
        {
            offsets[i] += 1;
        }
        piece = CellGraph(
            std::vector<GlobalIndex>(piece.globalIds().begin(), piece.globalIds().end()),
            std::move(offsets),
            std::move(adjacency)
        );
    }
    const std::string cell { "cell " + std::to_string(piece.globalIds().empty() ? 0 : 0) };
    requireErrorEverywhere(
        [&] { (void)HaloBuilder(env, 1).build(piece); }, "has neighbour 53 that no rank owns"
    );
    // with owners given: the neighbour is said to live on a rank that does not own it
    if (env.sizeRank() > 1)
    {
        std::vector<int> owners;
        for (const GlobalIndex n : piece.adjacency())
        {
            owners.push_back(n < 48 ? parts[static_cast<std::size_t>(n)] : 1);
        }
        requireErrorEverywhere(
            [&] { (void)HaloBuilder(env, 1).build(piece, owners); }, "no rank owns cell 53"
        );
    }
    // owner out of range
    const CellGraph clean { test::ownedPiece(g, parts, env.rank()) };
    std::vector<int> badOwners;
    for (const GlobalIndex n : clean.adjacency())
    {
        const int owner { parts[static_cast<std::size_t>(n)] };
        badOwners.push_back(owner == env.rank() ? owner : owner + 100);
    }
    if (env.sizeRank() > 1)
    {
        requireErrorEverywhere(
            [&] { (void)HaloBuilder(env, 1).build(clean, badOwners); }, "has owner 1"
        );
    }
    requireErrorEverywhere(
        [&] { (void)HaloBuilder(env, 1).build(clean, std::vector<int>(3, 0)); },
        "neighbour owners for"
    );
}

TEST_CASE("HaloBuilder errors: asymmetric graph, within a rank and across ranks")
{
    const mpi::MPIEnvironment env;
    const CellGraph g { test::grid(8, 6) };
    const auto parts = blocks(g.nCells(), env.sizeRank());
    // cell 20 = (4,2) keeps neighbour 28 but 28 forgets 20 (same rank for 1..2 ranks)
    const CellGraph asym { withoutEdge(g, 28, 20) };
    requireErrorEverywhere(
        [&] { (void)HaloBuilder(env, 1).build(test::ownedPiece(asym, parts, env.rank())); },
        "asymmetric graph: cell 20"
    );
    // cell 20 = (4,2) forgets both 19 and 21, which still list it (same rank for 1..4 ranks):
    // two missing edges whose terms cancel in a check that is linear in the cells
    const CellGraph twoMissing { withoutEdge(withoutEdge(g, 20, 19), 20, 21) };
    requireErrorEverywhere(
        [&] { (void)HaloBuilder(env, 1).build(test::ownedPiece(twoMissing, parts, env.rank())); },
        "lists neighbour 20 but cell 20 does not list" // 19 or 21, whichever comes first
    );
    // an edge across the rank cut: last cell of rank 0's block and first of rank 1's
    if (env.sizeRank() > 1)
    {
        const Partition p { Partition::block(g.nCells(), env.sizeRank()) };
        const auto [a, b] = cutEdge(g, p);
        REQUIRE(b != 0);
        const CellGraph cut { withoutEdge(g, b, a) };
        requireErrorEverywhere(
            [&] { (void)HaloBuilder(env, 1).build(test::ownedPiece(cut, parts, env.rank())); },
            "asymmetric graph: cell " + std::to_string(a)
        );
        requireErrorEverywhere(
            [&] { (void)DistributedGraph::scatter(env, cut, p); },
            "asymmetric graph: cell " + std::to_string(a)
        );
    }
}

TEST_CASE("HaloBuilder errors: an edge listed more times one way than the other")
{
    // An edge may be listed several times (two faces between two cells), as many times both
    // ways; otherwise the rank that sees it names both counts. Owners from the directory and
    // given.
    const mpi::MPIEnvironment env;
    const CellGraph g { test::grid(8, 6) };
    const auto parts = blocks(g.nCells(), env.sizeRank());
    const auto ownersOf = [&](const CellGraph& piece)
    {
        return test::neighbourOwners(piece, parts);
    };
    // inside a rank (on any number of ranks up to 24): cell a lists b twice, b lists a once
    const auto [inA, inB] = insideEdge(g, Partition::block(g.nCells(), env.sizeRank()));
    REQUIRE(inA >= 0);
    const std::string insideText { "cell " + std::to_string(inA) + " lists neighbour " +
                                   std::to_string(inB) + " twice but cell " + std::to_string(inB) +
                                   " lists " + std::to_string(inA) + " once" };
    const CellGraph inside { test::ownedPiece(withExtraEntry(g, inA, inB), parts, env.rank()) };
    requireErrorEverywhere([&] { (void)HaloBuilder(env, 1).build(inside); }, insideText);
    requireErrorEverywhere(
        [&] { (void)HaloBuilder(env, 1).build(inside, ownersOf(inside)); }, insideText
    );
    // across the cut between rank 0's block and rank 1's: b (rank 1) lists a (rank 0) twice
    if (env.sizeRank() > 1)
    {
        const Partition p { Partition::block(g.nCells(), env.sizeRank()) };
        const auto [a, b] = cutEdge(g, p);
        REQUIRE(b != 0);
        const std::string named { "cell " + std::to_string(b) + " (rank 1) lists neighbour " +
                                  std::to_string(a) + " twice but cell " + std::to_string(a) +
                                  " lists " + std::to_string(b) + " once" };
        const CellGraph across { test::ownedPiece(withExtraEntry(g, b, a), parts, env.rank()) };
        requireErrorEverywhere([&] { (void)HaloBuilder(env, 1).build(across); }, named);
        requireErrorEverywhere(
            [&] { (void)HaloBuilder(env, 1).build(across, ownersOf(across)); }, named
        );
        // listed twice both ways: a valid graph, whose ghost appears once and its entry twice
        const CellGraph both { withExtraEntry(withExtraEntry(g, b, a), a, b) };
        const CellGraph piece { test::ownedPiece(both, parts, env.rank()) };
        for (const HaloLayout& layout : { HaloBuilder(env, 1).build(piece),
                                          HaloBuilder(env, 1).build(piece, ownersOf(piece)) })
        {
            const GlobalIndex mine { env.rank() == 0 ? a : env.rank() == 1 ? b : -1 };
            const GlobalIndex other { env.rank() == 0 ? b : a };
            if (mine >= 0)
            {
                const auto ids = layout.globalIds();
                const auto at = std::find(ids.begin(), ids.end(), mine);
                REQUIRE(at != ids.end());
                std::size_t entries { 0 };
                for (const LocalIndex n :
                     layout.neighbours(static_cast<std::size_t>(at - ids.begin())))
                {
                    entries += ids[static_cast<std::size_t>(n)] == other ? 1 : 0;
                }
                REQUIRE(entries == 2);
                REQUIRE(std::count(ids.begin(), ids.end(), other) == 1);
            }
        }
    }
}

TEST_CASE("HaloBuilder errors: a cell owned twice, a cell listed twice, depth 0")
{
    const mpi::MPIEnvironment env;
    const CellGraph g { test::grid(8, 6) };
    const auto parts = blocks(g.nCells(), env.sizeRank());
    if (env.sizeRank() > 1)
    {
        // every rank also claims the isolated cell 100
        std::vector<GlobalIndex> ids { 100 };
        std::vector<std::size_t> offsets { 0, 0 };
        const CellGraph twice(ids, offsets, {});
        requireErrorEverywhere(
            [&] { (void)HaloBuilder(env, 1).build(twice); }, "cell 100 is owned by both"
        );
    }
    const CellGraph listedTwice({ 4, 4 }, { 0, 0, 0 }, {});
    requireErrorEverywhere(
        [&] { (void)HaloBuilder(env, 1).build(listedTwice); }, "cell 4 is listed twice"
    );
    REQUIRE_THROWS_AS(HaloBuilder(env, 0), Error);
    // the ranks must agree on the depth: each layer is a collective step, so a rank with one
    // layer fewer would leave the others waiting for its answers
    if (env.sizeRank() > 1)
    {
        requireErrorEverywhere(
            [&] { (void)HaloBuilder(env, env.rank() == 0 ? 1 : 2); },
            "the ranks gave different halo depths, from 1 to 2"
        );
        requireErrorEverywhere(
            [&] { (void)HaloBuilder(env, env.rank() == 1 ? 0 : 1); },
            "halo depth must be >= 1, got 0"
        );
    }
}

TEST_CASE("DistributedGraph errors: partition vector of the wrong length or with a bad part")
{
    const mpi::MPIEnvironment env;
    const CellGraph g { test::grid(5, 4) };
    requireErrorEverywhere(
        [&] {
            (void
            )DistributedGraph::scatter(env, g, Partition(std::vector<int>(19, 0), env.sizeRank()));
        },
        "19 entries but the graph has 20 cells"
    );
    requireErrorEverywhere(
        [&]
        {
            (void)DistributedGraph::scatter(
                env, g, Partition(std::vector<int>(20, 0), env.sizeRank() + 1)
            );
        },
        "parts for"
    );
    std::vector<int> outOfRange(20, 0);
    outOfRange[13] = env.sizeRank();
    try
    {
        (void)Partition(outOfRange, env.sizeRank());
        FAIL("part out of range accepted");
    }
    catch (const Error& e)
    {
        REQUIRE(std::string(e.what()).find("cell 13 has part") != std::string::npos);
    }
}
