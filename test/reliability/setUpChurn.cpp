// SPDX-License-Identifier: MIT
// Set-up churn (doc/notes/reliability.md, "Set-up churn"): set-ups of every kind back to back over
// one communicator, with nothing collective of the test's own between them, each checked against
// the whole graph. Every set-up exchange lets a rank leave while another still listens, so the
// next set-up's messages must never be taken by the one before (HaloBuilder builds with owners
// given once did exactly that on 3 and more ranks: wrong send maps).
#include "fieldsync_test/catch.hpp"

#include "../partition/testGraphs.hpp"

#include "fieldsync/halo/communicator.hpp"
#include "fieldsync/halo/ghostList.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"
#include "fieldsync/partition/haloBuilder.hpp"

#include <map>
#include <string>
#include <vector>

using namespace fieldsync;
using namespace fieldsync::partition;

namespace
{
/** @brief One partition of the whole graph and what this rank's builder input is. */
struct Case
{
    std::vector<int> parts;  /**< owner of every cell */
    CellGraph piece;         /**< this rank's cells (ownedPiece: descending ids) */
    std::vector<int> owners; /**< owner of each adjacency entry of piece */
};

Case makeCase(const CellGraph& g, std::vector<int> parts, int rank)
{
    Case c { std::move(parts), {}, {} };
    c.piece = test::ownedPiece(g, c.parts, rank);
    c.owners = test::neighbourOwners(c.piece, c.parts);
    return c;
}

/** @brief The local index of cell @p id on its owner (ownedPiece lists a rank's cells by
 * descending id): the number of cells above it with the same owner. */
LocalIndex indexOnOwner(const std::vector<int>& parts, GlobalIndex id)
{
    const int owner { parts[static_cast<std::size_t>(id)] };
    LocalIndex index { 0 };
    for (std::size_t c { static_cast<std::size_t>(id) + 1 }; c < parts.size(); ++c)
    {
        index += parts[c] == owner ? 1 : 0;
    }
    return index;
}

/** @brief One exchange through @p comm on the layout's numbering; true when every ghost got the
 * value its owner holds. */
bool exchangeIsRight(halo::Communicator& comm, const HaloLayout& layout)
{
    std::vector<double> field(layout.nLocal(), -1.0);
    for (std::size_t i { 0 }; i < layout.nOwned(); ++i)
    {
        field[i] = test::valueOf(layout.globalIds()[i]);
    }
    comm.startComm(field, "churn");
    comm.finaliseComm(field, "churn");
    bool right { true };
    for (std::size_t i { 0 }; i < layout.nLocal(); ++i)
    {
        right = right && field[i] == test::valueOf(layout.globalIds()[i]);
    }
    return right;
}
} // namespace

TEST_CASE("Set-up churn: set-ups of every kind back to back, each checked against the graph")
{
    const mpi::MPIEnvironment env;
    const int rank { env.rank() };
    const int nRanks { env.sizeRank() };
    const CellGraph g { test::grid(12, 10) };
    std::vector<int> blockParts(g.nCells());
    std::vector<int> cyclicParts(g.nCells());
    for (std::size_t c { 0 }; c < g.nCells(); ++c)
    {
        blockParts[c] = static_cast<int>(c * static_cast<std::size_t>(nRanks) / g.nCells());
        cyclicParts[c] = static_cast<int>(c % static_cast<std::size_t>(nRanks));
    }
    const Case cases[2] { makeCase(g, blockParts, rank), makeCase(g, cyclicParts, rank) };
    const std::map<int, std::vector<GlobalIndex>> sends[2] {
        test::expectedSends(g, cases[0].parts, rank), test::expectedSends(g, cases[1].parts, rank)
    };
    const HaloBuilder builder(env);
    const HaloBuilder deep(env, 2);
    int wrong { 0 };
    for (int round { 0 }; round < 240; ++round)
    {
        const int p { (round / 4) % 2 };
        const Case& c { cases[p] };
        switch (round % 4)
        {
        case 0:
        {
            // owners given, then the Communicator from the maps (an answered set-up)
            const HaloLayout layout { builder.build(c.piece, c.owners) };
            wrong += test::sendsOf(layout) == sends[p] ? 0 : 1;
            halo::Communicator comm(env, layout.sendMap(), layout.receiveMap());
            wrong += exchangeIsRight(comm, layout) ? 0 : 1;
            break;
        }
        case 1:
        {
            // owners from the directory, then a ghost list of the same ghosts
            const HaloLayout layout { builder.build(c.piece) };
            wrong += test::sendsOf(layout) == sends[p] ? 0 : 1;
            std::vector<LocalIndex> ghostCells;
            std::vector<halo::GhostOwner> owners;
            for (std::size_t k { 0 }; k < layout.nGhost(); ++k)
            {
                const GlobalIndex id { layout.globalIds()[layout.nOwned() + k] };
                ghostCells.push_back(static_cast<LocalIndex>(layout.nOwned() + k));
                owners.push_back({ c.parts[static_cast<std::size_t>(id)],
                                   indexOnOwner(c.parts, id) });
            }
            halo::Communicator comm {
                halo::GhostList(env, layout.nOwned(), ghostCells, owners).communicator()
            };
            wrong += exchangeIsRight(comm, layout) ? 0 : 1;
            break;
        }
        case 2:
        {
            // two layers, owners given; its exchange checked through the maps
            const HaloLayout layout { deep.build(c.piece, c.owners) };
            halo::Communicator comm(env, layout.sendMap(), layout.receiveMap());
            wrong += exchangeIsRight(comm, layout) ? 0 : 1;
            break;
        }
        default:
        {
            // two builds in a row with owners given and nothing else between them
            for (const int q : { 1 - p, p })
            {
                const HaloLayout layout { builder.build(cases[q].piece, cases[q].owners) };
                wrong += test::sendsOf(layout) == sends[q] ? 0 : 1;
            }
            break;
        }
        }
    }
    MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_INT, MPI_SUM, env.comm());
    REQUIRE(wrong == 0);
}
