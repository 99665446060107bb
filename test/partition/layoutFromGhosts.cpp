// SPDX-License-Identifier: MIT
// layoutFromGhosts on 1..4 ranks: a 24 x 16 grid in row bands, each rank numbering its cells in
// its own shuffled order (owned cells by a stride permutation, two ghost rows below and above in
// another, one remote cell listed as two ghosts), described as a code that uses halo::GhostList
// has it. The GhostList's own exchange checks the description; the layout is checked against the
// grid (ids, owners, layers, neighbours) and by a halo exchange on its maps; with Zoltan, a
// rebalance from it under a weight that moved is checked for balance, for every cell owned once,
// for Rebalanced::origins (a bijection onto the old owned cells whose ids the shuffle's closed
// form gives) and for fields and a halo exchange on the new layout against a function of the id.
// Bad lists are an Error on every rank naming the caller's line.
#include "fieldsync_test/catch.hpp"

#include "fieldsync/config.hpp"
#include "fieldsync/core/error.hpp"
#include "fieldsync/halo/communicator.hpp"
#include "fieldsync/halo/ghostList.hpp"
#include "fieldsync/mpi/collectives.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"
#include "fieldsync/partition/layoutFromGhosts.hpp"
#if FIELDSYNC_HAVE_ZOLTAN
#include "fieldsync/partition/rebalancer.hpp"
#endif
#include "testGraphs.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <map>
#include <numeric>
#include <source_location>
#include <string>
#include <vector>

using namespace fieldsync;
using namespace fieldsync::partition;

namespace
{
constexpr int nx { 24 };
constexpr int ny { 16 };
constexpr GlobalIndex n { nx * ny };

/** @brief The first row of rank @p r's band (rank p: ny). */
int firstRow(int r, int p)
{
    return r * ny / p;
}

/** @brief The rank whose band holds row @p j. */
int ownerOfRow(int j, int p)
{
    int r { 0 };
    while (firstRow(r + 1, p) <= j)
    {
        ++r;
    }
    return r;
}

/** @brief A stride coprime to @p count: the shuffle k -> (stride k + 3) mod count. */
int strideFor(int count)
{
    int stride { 7 };
    while (std::gcd(stride, count) != 1)
    {
        stride += 2;
    }
    return stride;
}

/** @brief The shuffle of @p k among @p count places (a bijection). */
int shuffled(int k, int count)
{
    return count == 0 ? 0 : static_cast<int>((std::int64_t { strideFor(count) } * k + 3) % count);
}

/** @brief Rank @p r's own local index of its owned cell @p id. */
LocalIndex ownedLocal(GlobalIndex id, int r, int p)
{
    const int count { (firstRow(r + 1, p) - firstRow(r, p)) * nx };
    return shuffled(static_cast<int>(id - GlobalIndex { firstRow(r, p) } * nx), count);
}

/** @brief The id of rank @p r's owned cell at local index @p index (inverting the shuffle by a
 * search, so nothing of the code under test is used). */
GlobalIndex idAt(int r, LocalIndex index, int p)
{
    for (GlobalIndex id { GlobalIndex { firstRow(r, p) } * nx };
         id < GlobalIndex { firstRow(r + 1, p) } * nx;
         ++id)
    {
        if (ownedLocal(id, r, p) == index)
        {
            return id;
        }
    }
    return -1;
}

/** @brief One rank's mesh as a GhostList user has it: its own numbering throughout. */
struct OwnNumbering
{
    std::vector<GlobalIndex> ownedIds;         /**< id of owned cell i (shuffled) */
    std::vector<LocalIndex> ghostCells;        /**< local index of each ghost */
    std::vector<halo::GhostOwner> owners;      /**< owner of each ghost */
    std::vector<GlobalIndex> ghostIds;         /**< id of each ghost (the test's truth) */
    std::vector<int> ghostLayers;              /**< 1: a face neighbour's row, 2: the next */
    std::vector<std::size_t> offsets { 0 };    /**< owned cells' neighbours, CSR */
    std::vector<LocalIndex> neighbours;        /**< as own local indices */
    std::map<GlobalIndex, LocalIndex> localOf; /**< id -> own local index */
    std::size_t nLocal { 0 };                  /**< owned + ghost indices */
};

/** @brief Rank @p r's numbering: ghosts are the two rows below and above its band. */
OwnNumbering ownNumbering(int r, int p)
{
    OwnNumbering mesh;
    const int j0 { firstRow(r, p) };
    const int j1 { firstRow(r + 1, p) };
    const auto nOwned = static_cast<std::size_t>((j1 - j0) * nx);
    mesh.ownedIds.resize(nOwned);
    for (GlobalIndex id { GlobalIndex { j0 } * nx }; id < GlobalIndex { j1 } * nx; ++id)
    {
        mesh.ownedIds[static_cast<std::size_t>(ownedLocal(id, r, p))] = id;
        mesh.localOf[id] = ownedLocal(id, r, p);
    }
    for (const int j : { j0 - 2, j0 - 1, j1, j1 + 1 })
    {
        for (int i { 0 }; i < nx && j >= 0 && j < ny; ++i)
        {
            mesh.ghostIds.push_back(i + GlobalIndex { nx } * j);
            mesh.ghostLayers.push_back(j == j0 - 1 || j == j1 ? 1 : 2);
        }
    }
    const auto nGhost = static_cast<int>(mesh.ghostIds.size());
    for (int g { 0 }; g < nGhost; ++g)
    {
        const GlobalIndex id { mesh.ghostIds[static_cast<std::size_t>(g)] };
        const int owner { ownerOfRow(static_cast<int>(id / nx), p) };
        mesh.ghostCells.push_back(static_cast<LocalIndex>(nOwned) + shuffled(g, nGhost));
        mesh.owners.push_back({ owner, ownedLocal(id, owner, p) });
        mesh.localOf[id] = mesh.ghostCells.back();
    }
    if (nGhost > 0) // the first remote cell once more, under another ghost index
    {
        mesh.ghostIds.push_back(mesh.ghostIds.front());
        mesh.ghostLayers.push_back(mesh.ghostLayers.front());
        mesh.ghostCells.push_back(static_cast<LocalIndex>(nOwned) + nGhost);
        mesh.owners.push_back(mesh.owners.front());
    }
    mesh.nLocal = nOwned + mesh.ghostCells.size();
    const CellGraph whole { test::grid(nx, ny) };
    for (const GlobalIndex id : mesh.ownedIds)
    {
        for (const GlobalIndex nb : whole.neighbours(static_cast<std::size_t>(id)))
        {
            mesh.neighbours.push_back(mesh.localOf.at(nb));
        }
        mesh.offsets.push_back(mesh.neighbours.size());
    }
    return mesh;
}

/** @brief Collective: the ghosts of @p field (on @p nOwned owned cells, ids @p ids) that do not
 * hold test::valueOf of their id after an exchange through @p comm. */
int wrongAfterExchange(
    const mpi::MPIEnvironment& env,
    halo::Communicator& comm,
    std::span<const GlobalIndex> ids,
    std::size_t nOwned,
    std::span<const LocalIndex> ghostCells
)
{
    Kokkos::View<double*> field("field", ids.size());
    auto host = Kokkos::create_mirror_view(field);
    for (std::size_t i { 0 }; i < ids.size(); ++i)
    {
        host(i) = i < nOwned ? test::valueOf(ids[i]) : -1.0;
    }
    Kokkos::deep_copy(field, host);
    comm.startComm(field);
    comm.finaliseComm(field);
    Kokkos::deep_copy(host, field);
    int wrong { 0 };
    for (const LocalIndex g : ghostCells)
    {
        const auto at = static_cast<std::size_t>(g);
        wrong += host(at) == test::valueOf(ids[at]) ? 0 : 1;
    }
    mpi::allReduce(wrong, mpi::ReduceOp::Sum, env.comm());
    return wrong;
}

/** @brief The own numbering's ids by local index (owned, then ghosts where they sit). */
std::vector<GlobalIndex> idsByLocal(const OwnNumbering& mesh)
{
    std::vector<GlobalIndex> ids(mesh.nLocal, -1);
    std::copy(mesh.ownedIds.begin(), mesh.ownedIds.end(), ids.begin());
    for (std::size_t k { 0 }; k < mesh.ghostCells.size(); ++k)
    {
        ids[static_cast<std::size_t>(mesh.ghostCells[k])] = mesh.ghostIds[k];
    }
    return ids;
}
} // namespace

TEST_CASE("layoutFromGhosts: a shuffled own numbering gives the grid's layout and halo")
{
    const mpi::MPIEnvironment env;
    const int p { env.sizeRank() };
    const OwnNumbering mesh { ownNumbering(env.rank(), p) };
    const std::vector<GlobalIndex> ownIds { idsByLocal(mesh) };
    // the description is right: the code's own GhostList delivers every ghost's value
    halo::GhostList list(env, mesh.ownedIds.size(), mesh.ghostCells, mesh.owners);
    halo::Communicator own { list.communicator() };
    REQUIRE(wrongAfterExchange(env, own, ownIds, mesh.ownedIds.size(), mesh.ghostCells) == 0);

    const HaloLayout layout { layoutFromGhosts(
        env, mesh.ownedIds, mesh.ghostCells, mesh.owners, mesh.offsets, mesh.neighbours
    ) };
    REQUIRE(layout.nOwned() == mesh.ownedIds.size());
    REQUIRE(std::equal(mesh.ownedIds.begin(), mesh.ownedIds.end(), layout.globalIds().begin())
    ); // owned cells where the code has them
    // the ghosts: each remote cell once, grouped by owner, by id, with owner and layer
    std::vector<std::pair<int, GlobalIndex>> expected;
    std::map<GlobalIndex, int> layerOf;
    for (std::size_t k { 0 }; k < mesh.ghostIds.size(); ++k)
    {
        expected.emplace_back(
            ownerOfRow(static_cast<int>(mesh.ghostIds[k] / nx), p), mesh.ghostIds[k]
        );
        layerOf[mesh.ghostIds[k]] = mesh.ghostLayers[k];
    }
    std::sort(expected.begin(), expected.end());
    expected.erase(std::unique(expected.begin(), expected.end()), expected.end());
    REQUIRE(layout.nGhost() == expected.size());
    for (std::size_t g { 0 }; g < layout.nGhost(); ++g)
    {
        const GlobalIndex id { layout.globalIds()[layout.nOwned() + g] };
        CHECK(layout.ghostOwners()[g] == expected[g].first);
        CHECK(id == expected[g].second);
        CHECK(layout.ghostLayers()[g] == layerOf.at(id));
    }
    // the owned cells' neighbours: the grid's, in the order given
    const CellGraph whole { test::grid(nx, ny) };
    int wrongNeighbours { 0 };
    for (std::size_t i { 0 }; i < layout.nOwned(); ++i)
    {
        const auto truth = whole.neighbours(static_cast<std::size_t>(mesh.ownedIds[i]));
        const auto local = layout.neighbours(i);
        wrongNeighbours += truth.size() == local.size() ? 0 : 1;
        for (std::size_t e { 0 }; e < std::min(truth.size(), local.size()); ++e)
        {
            wrongNeighbours +=
                layout.globalIds()[static_cast<std::size_t>(local[e])] == truth[e] ? 0 : 1;
        }
    }
    REQUIRE(wrongNeighbours == 0);
    // its maps deliver every ghost's value
    halo::Communicator comm(env, layout.sendMap(), layout.receiveMap());
    std::vector<LocalIndex> ghosts(layout.nGhost());
    std::iota(ghosts.begin(), ghosts.end(), static_cast<LocalIndex>(layout.nOwned()));
    REQUIRE(wrongAfterExchange(env, comm, layout.globalIds(), layout.nOwned(), ghosts) == 0);
}

#if FIELDSYNC_HAVE_ZOLTAN

namespace
{
/** @brief The weight after it moved: the rows j >= 11 weigh 8, the others 1 (the bands were
 * balanced for a uniform weight). */
double weightOf(GlobalIndex id)
{
    return id / nx >= 11 ? 8.0 : 1.0;
}

/** @brief Collective: the cells of the grid not owned exactly once by @p ids over the ranks. */
int notOwnedOnce(const mpi::MPIEnvironment& env, std::span<const GlobalIndex> ids)
{
    std::vector<int> count(static_cast<std::size_t>(n), 0);
    for (const GlobalIndex id : ids)
    {
        ++count.at(static_cast<std::size_t>(id));
    }
    mpi::allReduce(std::span<int>(count), mpi::ReduceOp::Sum, env.comm());
    return static_cast<int>(std::count_if(count.begin(), count.end(), [](int c) { return c != 1; })
    );
}

void checkRebalance(RebalanceMethod method)
{
    const mpi::MPIEnvironment env;
    const int p { env.sizeRank() };
    const OwnNumbering mesh { ownNumbering(env.rank(), p) };
    const std::size_t nOwned { mesh.ownedIds.size() };
    std::vector<double> weights;
    std::vector<std::array<double, 3>> centroids;
    Kokkos::View<double*> u("u", mesh.nLocal); // the code's field, in its own numbering
    auto uHost = Kokkos::create_mirror_view(u);
    for (std::size_t i { 0 }; i < nOwned; ++i)
    {
        const GlobalIndex id { mesh.ownedIds[i] };
        weights.push_back(weightOf(id));
        centroids.push_back({ (static_cast<double>(id % nx) + 0.5) / nx,
                              (static_cast<double>(id / nx) + 0.5) / ny,
                              0.0 });
        uHost(i) = test::valueOf(id);
    }
    Kokkos::deep_copy(u, uHost);
    // the code's point-based data: the four corner points of each cell (point ids of the
    // (nx + 1) x (ny + 1) grid of points), rows in its own numbering
    Kokkos::View<GlobalIndex* [4], Kokkos::HostSpace> corners("corners", nOwned);
    const auto cornerOf = [](GlobalIndex id, int c)
    {
        return id % nx + c % 2 + (id / nx + c / 2) * (nx + 1);
    };
    for (std::size_t i { 0 }; i < nOwned; ++i)
    {
        for (int c { 0 }; c < 4; ++c)
        {
            corners(i, c) = cornerOf(mesh.ownedIds[i], c);
        }
    }
    const double before { test::weightImbalance(env, mesh.ownedIds, weightOf) };

    // [ghost-rebalance]
    // what the code gave its GhostList, its owned cells' ids and their neighbours, all in its
    // own numbering
    const HaloLayout layout { layoutFromGhosts(
        env, mesh.ownedIds, mesh.ghostCells, mesh.owners, mesh.offsets, mesh.neighbours
    ) };
    const Rebalancer rebalancer(env, RebalanceOptions { method });
    Rebalanced result { rebalancer.rebalance(layout, weights, centroids, 2, u) };
    // u lives on result.layout now; result.communicator exchanges its ghosts; new owned cell i
    // was cell result.origins[i].index of rank result.origins[i].rank in the code's numbering;
    // per-cell rows of any width (here each cell's corner points) follow the same plan:
    result.migration.migrate(result.layout.nOwned(), corners);
    // [ghost-rebalance]

    const std::size_t nNew { result.layout.nOwned() };
    const std::span<const GlobalIndex> ids { result.layout.globalIds().first(nNew) };
    REQUIRE(notOwnedOnce(env, ids) == 0);
    const double after { test::weightImbalance(env, ids, weightOf) };
    CHECK(std::abs(result.report.imbalanceBefore - before) < 1e-12);
    CHECK(std::abs(result.report.imbalanceAfter - after) < 1e-12);
    if (p > 1)
    {
        REQUIRE(before > 1.3);
        REQUIRE(after < 1.15);
    }
    // origins: a bijection onto the old owned cells (old rank r's cell k at firstRow(r) nx + k),
    // each naming the cell the shuffle's closed form puts there
    REQUIRE(result.origins.size() == nNew);
    std::vector<int> hits(static_cast<std::size_t>(n), 0);
    int wrong { 0 };
    uHost = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), u);
    for (std::size_t i { 0 }; i < nNew; ++i)
    {
        const halo::GhostOwner from { result.origins[i] };
        const GlobalIndex bandStart { GlobalIndex { firstRow(from.rank, p) } * nx };
        const GlobalIndex bandEnd { GlobalIndex { firstRow(from.rank + 1, p) } * nx };
        REQUIRE(from.index >= 0);
        REQUIRE(from.index < bandEnd - bandStart);
        ++hits[static_cast<std::size_t>(bandStart + from.index)];
        wrong += idAt(from.rank, from.index, p) == ids[i] ? 0 : 1;
        wrong += uHost(i) == test::valueOf(ids[i]) ? 0 : 1;
        for (int c { 0 }; c < 4; ++c)
        {
            wrong += corners(i, c) == cornerOf(ids[i], c) ? 0 : 1;
        }
    }
    mpi::allReduce(std::span<int>(hits), mpi::ReduceOp::Sum, env.comm());
    mpi::allReduce(wrong, mpi::ReduceOp::Sum, env.comm());
    REQUIRE(std::count(hits.begin(), hits.end(), 1) == n);
    REQUIRE(wrong == 0);
    // the halo of the new layout
    std::vector<LocalIndex> ghosts(result.layout.nGhost());
    std::iota(ghosts.begin(), ghosts.end(), static_cast<LocalIndex>(nNew));
    REQUIRE(
        wrongAfterExchange(env, result.communicator, result.layout.globalIds(), nNew, ghosts) == 0
    );
}
} // namespace

TEST_CASE("layoutFromGhosts then Rebalancer: balanced, origins a bijection, halo rebuilt")
{
    SECTION("HSFC")
    {
        checkRebalance(RebalanceMethod::Hsfc);
    }
    SECTION("graph (PHG): the edges to ghosts carry their owners")
    {
        checkRebalance(RebalanceMethod::Graph);
    }
}

#endif

namespace
{
/** @brief Calls layoutFromGhosts with @p mesh and expects an Error on every rank at the call's
 * line, whose text on rank @p failing contains @p text and on the others names that rank. */
void expectError(
    const mpi::MPIEnvironment& env, const OwnNumbering& mesh, int failing, const std::string& text
)
{
    std::source_location site;
    int line { 0 };
    try
    {
        site = std::source_location::current(); // the file; the line is the call's
        line = __LINE__ + 1;
        (void)layoutFromGhosts(
            env, mesh.ownedIds, mesh.ghostCells, mesh.owners, mesh.offsets, mesh.neighbours
        );
        FAIL("layoutFromGhosts of a bad list returned");
    }
    catch (const Error& error)
    {
        CHECK(static_cast<int>(error.where().line()) == line);
        CHECK(std::string(error.where().file_name()) == site.file_name());
        CHECK_THAT(
            error.what(),
            Catch::Contains(env.rank() == failing ? text : "rank " + std::to_string(failing) + " ")
        );
    }
}
} // namespace

TEST_CASE("layoutFromGhosts errors: a bad ghost on one rank is an Error on every rank")
{
    const mpi::MPIEnvironment env;
    const int p { env.sizeRank() };
    OwnNumbering mesh { ownNumbering(env.rank(), p) };
    const auto extra = static_cast<LocalIndex>(mesh.nLocal); // one more ghost, on rank 0 only
    SECTION("a ghost owned by this rank itself")
    {
        if (env.rank() == 0)
        {
            mesh.ghostCells.push_back(extra);
            mesh.owners.push_back({ 0, 1 });
        }
        expectError(env, mesh, 0, "owned by this rank itself");
    }
    SECTION("an owner rank out of range")
    {
        if (env.rank() == 0)
        {
            mesh.ghostCells.push_back(extra);
            mesh.owners.push_back({ p, 0 });
        }
        expectError(env, mesh, 0, "owner rank " + std::to_string(p) + " is out of range");
    }
    SECTION("an owner index beyond the owner's cells (named by the owner)")
    {
        if (p > 1)
        {
            if (env.rank() == 0)
            {
                mesh.ghostCells.push_back(extra);
                mesh.owners.push_back({ 1, 100000 });
            }
            expectError(env, mesh, 1, "rank 0 lists a ghost with owner index 100000");
        }
    }
    SECTION("a neighbour that is neither owned nor a ghost")
    {
        if (env.rank() == 0)
        {
            mesh.neighbours.front() = extra + 5;
        }
        expectError(env, mesh, 0, "neither an owned cell nor a listed ghost");
    }
}
