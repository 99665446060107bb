// SPDX-License-Identifier: MIT
// HaloBuilder against an independent breadth-first halo, and a raw-MPI exchange over its maps:
// every ghost must receive the known function of its global id that its owner holds.
#include "fieldsync_test/catch.hpp"

#include "fieldsync/halo/communicator.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"
#include "fieldsync/partition/distributedGraph.hpp"
#include "fieldsync/partition/haloBuilder.hpp"
#include "fieldsync/partition/metisPartitioner.hpp"
#include "testGraphs.hpp"

#include <algorithm>
#include <map>
#include <string>

using namespace fieldsync;
using namespace fieldsync::partition;
using fieldsync::test::expectedHalo;
using fieldsync::test::ownedPiece;
using fieldsync::test::valueOf;
using halo::Communicator;

namespace
{

/** @brief Exchanges @p values over the layout's maps with plain MPI (independent of halo/). */
void rawExchange(const HaloLayout& layout, std::vector<double>& values, MPI_Comm comm)
{
    const auto& send = layout.sendMap();
    const auto& receive = layout.receiveMap();
    std::vector<std::vector<double>> out(send.neighbourCount());
    std::vector<MPI_Request> requests;
    for (std::size_t k { 0 }; k < send.neighbourCount(); ++k)
    {
        for (std::size_t e { send.offsets()[k] }; e < send.offsets()[k + 1]; ++e)
        {
            out[k].push_back(values[static_cast<std::size_t>(send.indices()[e])]);
        }
        requests.emplace_back();
        MPI_Isend(
            out[k].data(),
            static_cast<int>(out[k].size()),
            MPI_DOUBLE,
            send.neighbours()[k],
            77,
            comm,
            &requests.back()
        );
    }
    for (std::size_t k { 0 }; k < receive.neighbourCount(); ++k)
    {
        MPI_Status status;
        MPI_Probe(receive.neighbours()[k], 77, comm, &status);
        int count { 0 };
        MPI_Get_count(&status, MPI_DOUBLE, &count);
        const std::size_t expected { receive.offsets()[k + 1] - receive.offsets()[k] };
        REQUIRE(static_cast<std::size_t>(count) == expected);
        std::vector<double> in(expected);
        MPI_Recv(in.data(), count, MPI_DOUBLE, status.MPI_SOURCE, 77, comm, MPI_STATUS_IGNORE);
        for (std::size_t e { 0 }; e < expected; ++e)
        {
            values[static_cast<std::size_t>(receive.indices()[receive.offsets()[k] + e])] = in[e];
        }
    }
    MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
}

/** @brief Checks @p layout of rank @p rank against the whole graph and partition. */
void checkLayout(
    const HaloLayout& layout,
    const CellGraph& g,
    const std::vector<int>& parts,
    int rank,
    int depth,
    MPI_Comm comm
)
{
    std::size_t nOwned { 0 };
    for (const int p : parts)
    {
        nOwned += p == rank ? 1 : 0;
    }
    REQUIRE(layout.nOwned() == nOwned);
    const auto halo = expectedHalo(g, parts, rank, depth);
    REQUIRE(layout.nGhost() == halo.size());

    // ghosts: exactly the halo, grouped by owner and ordered by global id
    std::vector<std::pair<int, GlobalIndex>> expectedOrder;
    for (const GlobalIndex id : halo)
    {
        expectedOrder.emplace_back(parts[static_cast<std::size_t>(id)], id);
    }
    std::sort(expectedOrder.begin(), expectedOrder.end());
    for (std::size_t k { 0 }; k < expectedOrder.size(); ++k)
    {
        REQUIRE(layout.globalIds()[layout.nOwned() + k] == expectedOrder[k].second);
        REQUIRE(layout.ghostOwners()[k] == expectedOrder[k].first);
        REQUIRE(layout.ghostLayers()[k] >= 1);
        REQUIRE(layout.ghostLayers()[k] <= depth);
    }
    // each neighbour's ghosts are one contiguous run (receive in place)
    const auto& receive = layout.receiveMap();
    for (std::size_t k { 0 }; k < receive.neighbourCount(); ++k)
    {
        REQUIRE(receive.runStart(k) >= static_cast<LocalIndex>(layout.nOwned()));
    }
    // owned cells' neighbours, through the local numbering, are the graph's neighbours; the
    // interior cells (every neighbour owned) and the boundary cells, each ascending
    std::vector<LocalIndex> interior;
    std::vector<LocalIndex> boundary;
    for (std::size_t i { 0 }; i < layout.nOwned(); ++i)
    {
        const GlobalIndex id { layout.globalIds()[i] };
        REQUIRE(parts[static_cast<std::size_t>(id)] == rank);
        const auto expected = g.neighbours(static_cast<std::size_t>(id));
        const auto local = layout.neighbours(i);
        REQUIRE(local.size() == expected.size());
        bool allOwned { true };
        for (std::size_t e { 0 }; e < local.size(); ++e)
        {
            REQUIRE(layout.globalIds()[static_cast<std::size_t>(local[e])] == expected[e]);
            allOwned = allOwned && parts[static_cast<std::size_t>(expected[e])] == rank;
        }
        (allOwned ? interior : boundary).push_back(static_cast<LocalIndex>(i));
    }
    REQUIRE(std::ranges::equal(layout.interiorCells(), interior));
    REQUIRE(std::ranges::equal(layout.boundaryCells(), boundary));

    // every ghost receives the value its owner holds
    std::vector<double> values(layout.nLocal(), -1.0);
    for (std::size_t i { 0 }; i < layout.nOwned(); ++i)
    {
        values[i] = valueOf(layout.globalIds()[i]);
    }
    rawExchange(layout, values, comm);
    for (std::size_t i { 0 }; i < layout.nLocal(); ++i)
    {
        REQUIRE(values[i] == valueOf(layout.globalIds()[i]));
    }
    // and through the Communicator, with in-place receives on and off
    for (const bool inPlace : { true, false })
    {
        Kokkos::View<double*> field("field", layout.nLocal());
        auto host = Kokkos::create_mirror_view(field);
        for (std::size_t i { 0 }; i < layout.nLocal(); ++i)
        {
            host(i) = i < layout.nOwned() ? valueOf(layout.globalIds()[i]) : -1.0;
        }
        Kokkos::deep_copy(field, host);
        Communicator communicator(mpi::MPIEnvironment(comm), layout.sendMap(), layout.receiveMap());
        communicator.setOptions({ .inPlace = inPlace });
        communicator.startComm(field, "halo test");
        communicator.finaliseComm(field, "halo test");
        Kokkos::deep_copy(host, field);
        for (std::size_t i { 0 }; i < layout.nLocal(); ++i)
        {
            REQUIRE(host(i) == valueOf(layout.globalIds()[i]));
        }
    }
}

std::vector<int> blocks(std::size_t n, int nRanks)
{
    const Partition p { Partition::block(n, nRanks) };
    return { p.parts().begin(), p.parts().end() };
}

std::vector<int> cyclic(std::size_t n, int nRanks)
{
    std::vector<int> parts(n);
    for (std::size_t i { 0 }; i < n; ++i)
    {
        parts[i] = static_cast<int>(i % static_cast<std::size_t>(nRanks));
    }
    return parts;
}

} // namespace

TEST_CASE("HaloBuilder: halo, numbering and maps on several shapes, partitions and depths")
{
    const mpi::MPIEnvironment env;
    const int rank { env.rank() };
    const int nRanks { env.sizeRank() };
    const std::map<std::string, CellGraph> shapes {
        { "grid2d", test::grid(23, 17) },
        { "grid3d", test::grid(7, 6, 5) },
        { "ring", test::ring(41) },
        { "random", test::randomGraph(150, 260, 7) },
    };
    for (const auto& [shape, g] : shapes)
    {
        std::map<std::string, std::vector<int>> partitions {
            { "block", blocks(g.nCells(), nRanks) },
            { "cyclic", cyclic(g.nCells(), nRanks) },
        };
#if FIELDSYNC_HAVE_METIS
        const Partition metis { MetisPartitioner(3).partition(g, nRanks) };
        partitions.emplace("metis", std::vector<int>(metis.parts().begin(), metis.parts().end()));
#endif
        for (const auto& [partName, parts] : partitions)
        {
            for (const int depth : { 1, 2 })
            {
                INFO(shape << " " << partName << " depth " << depth);
                const HaloBuilder builder(env, depth);
                // distributed path: owners from the directory
                checkLayout(
                    builder.build(ownedPiece(g, parts, rank)), g, parts, rank, depth, env.comm()
                );
                // scatter path: owners given
                const auto piece = DistributedGraph::scatter(env, g, Partition(parts, nRanks));
                checkLayout(
                    builder.build(piece.cells(), piece.neighbourOwners()),
                    g,
                    parts,
                    rank,
                    depth,
                    env.comm()
                );
            }
        }
    }
}

TEST_CASE("HaloBuilder: consecutive builds on one builder, each with its own halo")
{
    // A rank leaves a build's exchange of edges while another may still listen for questions;
    // the next build's questions must never be taken by the build before (with owners given no
    // collective separates two builds; fault injection adds late polls, doc/reliability.md).
    // Each build's send map is checked against the one computed from the whole graph.
    const mpi::MPIEnvironment env;
    const int rank { env.rank() };
    const int nRanks { env.sizeRank() };
    const CellGraph g { test::grid(12, 10) };
    const std::vector<int> partitions[2] { blocks(g.nCells(), nRanks), cyclic(g.nCells(), nRanks) };
    CellGraph pieces[2];
    std::vector<int> owners[2];
    std::map<int, std::vector<GlobalIndex>> sends[2];
    for (int p { 0 }; p < 2; ++p)
    {
        pieces[p] = ownedPiece(g, partitions[p], rank);
        owners[p] = test::neighbourOwners(pieces[p], partitions[p]);
        sends[p] = test::expectedSends(g, partitions[p], rank);
    }
    const HaloBuilder builder(env);
    int wrong { 0 };
    for (int round { 0 }; round < 300; ++round)
    {
        const int p { round % 2 };
        wrong += test::sendsOf(builder.build(pieces[p], owners[p])) == sends[p] ? 0 : 1;
    }
    MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_INT, MPI_SUM, env.comm());
    REQUIRE(wrong == 0);
}

TEST_CASE("HaloBuilder: partitionAndScatter gives every cell to exactly one rank")
{
    const mpi::MPIEnvironment env;
    const CellGraph g { test::grid(30, 20) };
    std::vector<int> parts;
    const auto piece = DistributedGraph::partitionAndScatter(env, g, 0, 1, &parts);
    // the partition is known on the root only: send it to everyone for the check
    parts.resize(g.nCells());
    MPI_Bcast(parts.data(), static_cast<int>(parts.size()), MPI_INT, 0, env.comm());
    for (std::size_t i { 0 }; i < piece.cells().nCells(); ++i)
    {
        REQUIRE(parts[static_cast<std::size_t>(piece.cells().globalId(i))] == env.rank());
    }
    long long total { static_cast<long long>(piece.cells().nCells()) };
    MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_LONG_LONG, MPI_SUM, env.comm());
    REQUIRE(total == static_cast<long long>(g.nCells()));
    checkLayout(
        HaloBuilder(env, 1).build(piece.cells(), piece.neighbourOwners()),
        g,
        parts,
        env.rank(),
        1,
        env.comm()
    );
}

TEST_CASE("doc/partitioning.md: from a graph on one rank to a Communicator")
{
    const mpi::MPIEnvironment env;
    const struct
    {
        CellGraph graph() const { return test::grid(12, 8); }
    } mesh;
    // [graph-to-communicator]
    const CellGraph graph { env.rank() == 0 ? mesh.graph() : CellGraph {} }; // whole mesh on rank 0
    const DistributedGraph piece {
        DistributedGraph::partitionAndScatter(env, graph)
    };                                                                    // METIS, seed 1
    const HaloLayout layout { HaloBuilder(env, 1).build(piece.cells()) }; // directory + NBX
    Communicator comm(env, layout.sendMap(), layout.receiveMap());
    Kokkos::View<double*> u("u", layout.nLocal()); // owned + ghosts
    // [graph-to-communicator]
    const auto uHost = Kokkos::create_mirror_view(u);
    for (std::size_t i { 0 }; i < layout.nLocal(); ++i)
    {
        uHost(i) = i < layout.nOwned() ? test::valueOf(layout.globalIds()[i]) : -1.0;
    }
    Kokkos::deep_copy(u, uHost);
    comm.startComm(u);
    comm.finaliseComm(u);
    Kokkos::deep_copy(uHost, u);
    int wrong { 0 }; // every ghost holds the known function of its global id
    for (std::size_t i { 0 }; i < layout.nLocal(); ++i)
    {
        wrong += uHost(i) == test::valueOf(layout.globalIds()[i]) ? 0 : 1;
    }
    REQUIRE(wrong == 0);
}

TEST_CASE("HaloBuilder: per-rank memory does not grow with the number of ranks")
{
    // A strip: each rank of a sub-communicator of k ranks owns a fixed L x W block of a
    // (k*L) x W grid, so the local size is fixed while k grows. Owned cells, ghosts, maps and
    // directory entries must then not depend on k.
    const mpi::MPIEnvironment world;
    constexpr int L { 12 };
    constexpr int W { 5 };
    for (const int depth : { 1, 2 })
    {
        std::vector<long long> largest;
        for (int k { 1 }; k <= world.sizeRank(); ++k)
        {
            const mpi::MPIEnvironment sub { world.split(world.rank() < k ? 0 : 1, world.rank()) };
            long long bytes { 0 };
            if (world.rank() < k)
            {
                const CellGraph g { test::grid(k * L, W) };
                std::vector<int> parts(g.nCells());
                for (std::size_t i { 0 }; i < g.nCells(); ++i)
                {
                    parts[i] = static_cast<int>(i % static_cast<std::size_t>(k * L)) / L;
                }
                const HaloLayout layout {
                    HaloBuilder(sub, depth).build(ownedPiece(g, parts, sub.rank()))
                };
                REQUIRE(layout.nOwned() == static_cast<std::size_t>(L * W));
                const std::size_t sides { static_cast<std::size_t>(
                    (sub.rank() > 0 ? 1 : 0) + (sub.rank() + 1 < k ? 1 : 0)
                ) };
                REQUIRE(layout.nGhost() == sides * static_cast<std::size_t>(W * depth));
                REQUIRE(layout.sendMap().neighbourCount() == sides);
                REQUIRE(layout.directoryEntries() == static_cast<std::size_t>(L * W));
                bytes = static_cast<long long>(layout.memoryBytes());
            }
            MPI_Allreduce(MPI_IN_PLACE, &bytes, 1, MPI_LONG_LONG, MPI_MAX, world.comm());
            largest.push_back(bytes);
        }
        // the largest footprint is that of a rank with two neighbours, whatever k >= 3
        for (std::size_t k { 1 }; k < largest.size(); ++k)
        {
            REQUIRE(largest[k] >= largest[k - 1]);
            if (k >= 3)
            {
                REQUIRE(largest[k] == largest[2]);
            }
        }
    }
}

TEST_CASE("HaloBuilder: global ids spread far apart (hashed look-ups instead of a table)")
{
    const mpi::MPIEnvironment env;
    const int rank { env.rank() };
    const int nRanks { env.sizeRank() };
    const CellGraph g { test::grid(23, 17) };
    const auto spread = [](GlobalIndex id)
    {
        return 1'000'003 * id + 7;
    };
    for (const auto& parts : { blocks(g.nCells(), nRanks), cyclic(g.nCells(), nRanks) })
    {
        for (const int depth : { 1, 2 })
        {
            INFO("depth " << depth);
            // this rank's piece with every id spread out, and the owners of its neighbours
            const CellGraph piece { ownedPiece(g, parts, rank) };
            std::vector<GlobalIndex> ids;
            std::vector<GlobalIndex> adjacency;
            std::vector<int> owners;
            for (const GlobalIndex id : piece.globalIds())
            {
                ids.push_back(spread(id));
            }
            for (const GlobalIndex id : piece.adjacency())
            {
                adjacency.push_back(spread(id));
                owners.push_back(parts[static_cast<std::size_t>(id)]);
            }
            const CellGraph spreadPiece(
                ids,
                std::vector<std::size_t>(piece.offsets().begin(), piece.offsets().end()),
                adjacency
            );
            const HaloBuilder builder(env, depth);
            for (const bool ownersGiven : { false, true })
            {
                INFO("owners given " << ownersGiven);
                const HaloLayout layout { ownersGiven ? builder.build(spreadPiece, owners)
                                                      : builder.build(spreadPiece) };
                // the ghosts: the breadth-first halo, spread, grouped by owner, by id
                std::vector<std::pair<int, GlobalIndex>> expected;
                for (const GlobalIndex id : expectedHalo(g, parts, rank, depth))
                {
                    expected.emplace_back(parts[static_cast<std::size_t>(id)], spread(id));
                }
                std::sort(expected.begin(), expected.end());
                REQUIRE(layout.nOwned() == piece.nCells());
                REQUIRE(layout.nGhost() == expected.size());
                for (std::size_t k { 0 }; k < expected.size(); ++k)
                {
                    REQUIRE(layout.globalIds()[layout.nOwned() + k] == expected[k].second);
                    REQUIRE(layout.ghostOwners()[k] == expected[k].first);
                }
                // the owned cells' neighbours through the local numbering
                for (std::size_t i { 0 }; i < layout.nOwned(); ++i)
                {
                    const auto local = layout.neighbours(i);
                    const auto global = spreadPiece.neighbours(i);
                    REQUIRE(local.size() == global.size());
                    for (std::size_t e { 0 }; e < local.size(); ++e)
                    {
                        REQUIRE(
                            layout.globalIds()[static_cast<std::size_t>(local[e])] == global[e]
                        );
                    }
                }
                // every ghost receives its owner's value
                std::vector<double> values(layout.nLocal(), -1.0);
                for (std::size_t i { 0 }; i < layout.nOwned(); ++i)
                {
                    values[i] = valueOf(layout.globalIds()[i]);
                }
                rawExchange(layout, values, env.comm());
                for (std::size_t i { 0 }; i < layout.nLocal(); ++i)
                {
                    REQUIRE(values[i] == valueOf(layout.globalIds()[i]));
                }
            }
        }
    }
}
