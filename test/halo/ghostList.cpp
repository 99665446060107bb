// SPDX-License-Identifier: MIT
// GhostList: a Communicator from a ghost list (PetscSFSetGraph). Each rank owns a different
// number of cells; the global id of a cell is a known function of (rank, index). After one
// exchange every ghost must hold the value of its owner's cell, computed here from the formula,
// never from the maps. Bad lists end in an Error on every rank.
#include "fieldsync_test/catch.hpp"
#include "fieldsync_test/scopedWaitTimeout.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/core/liveObjects.hpp"
#include "fieldsync/halo/ghostList.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <source_location>
#include <string>
#include <utility>
#include <vector>

using namespace fieldsync;
using namespace fieldsync::halo;

namespace
{
/** @brief Cells rank @p r owns. */
LocalIndex ownedBy(int r)
{
    return 10 + 3 * r;
}

/** @brief Global id of cell @p index of rank @p r (ranks own consecutive blocks). */
std::int64_t globalId(int r, LocalIndex index)
{
    std::int64_t first { 0 };
    for (int q { 0 }; q < r; ++q)
    {
        first += ownedBy(q);
    }
    return first + index;
}

/** @brief The value every cell holds: a function of its global id. */
double valueOf(std::int64_t id)
{
    return 1000.5 + 7.0 * static_cast<double>(id);
}

/** @brief Rank @p me's ghost list on @p n ranks: from every rank (itself too) the cells whose
 * index i has (i + me) % 3 == 0, listed from the last rank down and each rank's cells downwards
 * (not grouped as the set-up wants), plus a second ghost of one remote cell; the ghost indices
 * are the owned count plus a reversed numbering. */
struct List
{
    std::vector<LocalIndex> ghosts; /**< local index of each ghost */
    std::vector<GhostOwner> owners; /**< its owner */
};

List listOf(int me, int n)
{
    List list;
    for (int q { n - 1 }; q >= 0; --q)
    {
        for (LocalIndex i { ownedBy(q) - 1 }; i >= 0; --i)
        {
            if ((i + me) % 3 == 0)
            {
                list.owners.push_back({ q, i });
            }
        }
    }
    list.owners.push_back({ (me + 1) % n, 1 }); // a second ghost of one cell
    const auto count = static_cast<LocalIndex>(list.owners.size());
    for (LocalIndex k { 0 }; k < count; ++k)
    {
        list.ghosts.push_back(ownedBy(me) + count - 1 - k);
    }
    return list;
}

/** @brief How many ghosts rank @p q's list asks of rank @p r (from the formula). */
std::size_t askedOf(int q, int r, int n)
{
    std::size_t count { 0 };
    for (LocalIndex i { 0 }; i < ownedBy(r); ++i)
    {
        count += (i + q) % 3 == 0 ? 1 : 0;
    }
    return count + ((q + 1) % n == r ? 1 : 0);
}

/** @brief Runs @p call (which must throw on every rank) and returns the Error's text. */
template<typename Call>
std::string errorOf(Call&& call)
{
    std::optional<std::string> text;
    try
    {
        call();
    }
    catch (const Error& error)
    {
        text = error.what();
    }
    REQUIRE(text.has_value());
    return *text;
}
} // namespace

TEST_CASE("GhostList: every ghost gets its owner's value", "[ghostList]")
{
    const mpi::MPIEnvironment env;
    const int me { env.rank() };
    const int n { env.sizeRank() };
    const List list { listOf(me, n) };
    GhostList ghostList(env, static_cast<std::size_t>(ownedBy(me)), list.ghosts, list.owners);

    // the maps: one receive neighbour per owner, the sizes each rank asked for
    for (int r { 0 }; r < n; ++r)
    {
        CHECK(ghostList.receiveMap().sizeOf(r) == askedOf(me, r, n));
        CHECK(ghostList.sendMap().sizeOf(r) == askedOf(r, me, n));
    }

    // truth for the registry: one more live object while the Communicator lives, named with
    // the line that made it (before, a GhostList's Communicator was not registered)
    const std::size_t liveBefore { liveObjectCount() };
    const int madeAt { __LINE__ + 1 };
    Communicator comm { ghostList.communicator() };
    REQUIRE(liveObjectCount() == liveBefore + 1);
    CHECK_THAT(liveObjects().back(), Catch::Contains("ghostList.cpp:" + std::to_string(madeAt)));
    const std::size_t nLocal { static_cast<std::size_t>(ownedBy(me)) + list.ghosts.size() };
    Kokkos::View<double*, Kokkos::HostSpace> field("field", nLocal);
    std::vector<double> copy(nLocal, -1.0);
    for (std::size_t i { 0 }; i < nLocal; ++i)
    {
        const bool owned { i < static_cast<std::size_t>(ownedBy(me)) };
        field(i) = owned ? valueOf(globalId(me, static_cast<LocalIndex>(i))) : -1.0;
        copy[i] = field(i);
    }
    comm.startComm(field, "field");
    comm.finaliseComm(field, "field");
    comm.startComm(copy, "copy");
    comm.finaliseComm(copy, "copy");
    for (std::size_t k { 0 }; k < list.ghosts.size(); ++k)
    {
        const auto ghost = static_cast<std::size_t>(list.ghosts[k]);
        const double expected { valueOf(globalId(list.owners[k].rank, list.owners[k].index)) };
        CAPTURE(me, k, ghost);
        REQUIRE(field(ghost) == expected);
        REQUIRE(copy[ghost] == expected);
    }
    CHECK_THROWS_AS(ghostList.communicator(), Error); // its communicator was handed on
}

TEST_CASE("GhostList: set-ups back to back on one communicator stay apart", "[ghostList]")
{
    // no other traffic between the set-ups: a rank may start the next one while another still
    // listens for the last one's requests (the set-ups alternate their tags)
    const mpi::MPIEnvironment env;
    const int me { env.rank() };
    const int n { env.sizeRank() };
    const List list { listOf(me, n) };
    std::vector<GhostList> lists;
    for (int k { 0 }; k < 24; ++k)
    {
        // every other set-up asks for the full list, the others for its first k + 1 ghosts
        const std::size_t count { k % 2 == 0 ? list.ghosts.size()
                                             : std::min<std::size_t>(list.ghosts.size(), k + 1) };
        lists.emplace_back(
            env,
            static_cast<std::size_t>(ownedBy(me)),
            std::span(list.ghosts).first(count),
            std::span(list.owners).first(count)
        );
    }
    for (int k { 0 }; k < 24; ++k)
    {
        CAPTURE(me, k);
        const std::size_t count { lists[static_cast<std::size_t>(k)].receiveMap().totalSize() };
        REQUIRE(
            count ==
            (k % 2 == 0 ? list.ghosts.size() : std::min<std::size_t>(list.ghosts.size(), k + 1))
        );
        Communicator comm { std::move(lists[static_cast<std::size_t>(k)]).communicator() };
        std::vector<double> field(static_cast<std::size_t>(ownedBy(me)) + list.ghosts.size(), -1.0);
        for (LocalIndex i { 0 }; i < ownedBy(me); ++i)
        {
            field[static_cast<std::size_t>(i)] = valueOf(globalId(me, i));
        }
        comm.startComm(field);
        comm.finaliseComm(field);
        for (std::size_t g { 0 }; g < list.ghosts.size(); ++g)
        {
            const double expected {
                g < count ? valueOf(globalId(list.owners[g].rank, list.owners[g].index)) : -1.0
            };
            REQUIRE(field[static_cast<std::size_t>(list.ghosts[g])] == expected);
        }
    }
}

TEST_CASE("GhostList: a rank with no ghosts, and ghosts already grouped by owner", "[ghostList]")
{
    const mpi::MPIEnvironment env;
    const int me { env.rank() };
    const int n { env.sizeRank() };
    // odd ranks have no ghosts; even ranks take cell 0 of every rank, in rank order
    std::vector<LocalIndex> ghosts;
    std::vector<GhostOwner> owners;
    if (me % 2 == 0)
    {
        for (int q { 0 }; q < n; ++q)
        {
            ghosts.push_back(ownedBy(me) + q);
            owners.push_back({ q, 0 });
        }
    }
    GhostList ghostList(env, static_cast<std::size_t>(ownedBy(me)), ghosts, owners);
    Communicator comm { ghostList.communicator() };
    std::vector<double> field(static_cast<std::size_t>(ownedBy(me)) + ghosts.size(), -1.0);
    for (LocalIndex i { 0 }; i < ownedBy(me); ++i)
    {
        field[static_cast<std::size_t>(i)] = valueOf(globalId(me, i));
    }
    comm.startComm(field);
    comm.finaliseComm(field);
    for (std::size_t k { 0 }; k < ghosts.size(); ++k)
    {
        REQUIRE(field[static_cast<std::size_t>(ghosts[k])] == valueOf(globalId(owners[k].rank, 0)));
    }
    std::size_t asking { 0 };
    for (int q { 0 }; q < n; q += 2)
    {
        ++asking;
    }
    CHECK(ghostList.sendMap().totalSize() == asking);
}

TEST_CASE(
    "GhostList: a list in owner and cell order (the set-up's fast checks), several cells per owner",
    "[ghostList]"
)
{
    const mpi::MPIEnvironment env;
    const int me { env.rank() };
    const int n { env.sizeRank() };
    const auto nOwned = static_cast<std::size_t>(ownedBy(me));
    // from every rank (itself too) the cells i with (i + me) % 2 == 0, by rank then cell, the
    // ghosts numbered upwards: owners ascending and ghosts strictly ascending
    std::vector<LocalIndex> ghosts;
    std::vector<GhostOwner> owners;
    for (int q { 0 }; q < n; ++q)
    {
        for (LocalIndex i { 0 }; i < ownedBy(q); ++i)
        {
            if ((i + me) % 2 == 0)
            {
                owners.push_back({ q, i });
                ghosts.push_back(static_cast<LocalIndex>(nOwned + ghosts.size()));
            }
        }
    }
    const auto asked = [](int q, int r) // cells rank q asks of rank r
    {
        std::size_t count { 0 };
        for (LocalIndex i { 0 }; i < ownedBy(r); ++i)
        {
            count += (i + q) % 2 == 0 ? 1 : 0;
        }
        return count;
    };

    SECTION("every ghost gets its owner's value")
    {
        GhostList ghostList(env, nOwned, ghosts, owners);
        for (int r { 0 }; r < n; ++r)
        {
            CHECK(ghostList.receiveMap().sizeOf(r) == asked(me, r));
            CHECK(ghostList.sendMap().sizeOf(r) == asked(r, me));
        }
        // the maps move into the Communicator; the list is left with empty ones
        Communicator comm { std::move(ghostList).communicator() };
        CHECK(ghostList.sendMap().neighbourCount() == 0); // NOLINT(bugprone-use-after-move)
        CHECK(ghostList.receiveMap().totalSize() == 0);   // NOLINT(bugprone-use-after-move)
        CHECK_THROWS_AS(std::move(ghostList).communicator(), Error); // handed on already
        std::vector<double> field(nOwned + ghosts.size(), -1.0);
        for (std::size_t i { 0 }; i < nOwned; ++i)
        {
            field[i] = valueOf(globalId(me, static_cast<LocalIndex>(i)));
        }
        comm.startComm(field);
        comm.finaliseComm(field);
        for (std::size_t k { 0 }; k < ghosts.size(); ++k)
        {
            CAPTURE(me, k);
            REQUIRE(
                field[static_cast<std::size_t>(ghosts[k])] ==
                valueOf(globalId(owners[k].rank, owners[k].index))
            );
        }
    }
    SECTION("a ghost listed twice in a list grouped by owner")
    {
        const int last { n - 1 };
        if (me == last)
        {
            ghosts[3] = ghosts[1]; // owners stay grouped, every entry alone is good
        }
        const std::string text { errorOf([&] { GhostList(env, nOwned, ghosts, owners); }) };
        CHECK_THAT(
            text,
            Catch::Contains(
                "ghost cell " + std::to_string(ownedBy(last) + 1) +
                " is listed twice (entries 1 and 3)"
            )
        );
        CHECK_THAT(text, Catch::Contains("(rank " + std::to_string(last) + ")"));
    }
}

TEST_CASE(
    "GhostList: bad input is an Error on every rank, naming site, rank and value", "[ghostList]"
)
{
    const mpi::MPIEnvironment env;
    const int me { env.rank() };
    const int n { env.sizeRank() };
    const int last { n - 1 };
    const auto nOwned = static_cast<std::size_t>(ownedBy(me));
    const auto site = std::source_location::current();
    const std::string siteText { fieldsync::toString(site) };

    SECTION("owner rank out of range")
    {
        List list { listOf(me, n) };
        if (me == last)
        {
            list.owners[1].rank = n;
        }
        const std::string text {
            errorOf([&] { GhostList(env, nOwned, list.ghosts, list.owners, site); })
        };
        CHECK_THAT(text, Catch::Contains(siteText));
        CHECK_THAT(text, Catch::Contains("owner rank " + std::to_string(n) + " is out of range"));
        CHECK_THAT(text, Catch::Contains("(rank " + std::to_string(last) + ")"));
    }
    SECTION("owner index beyond the owner's cells (checked by the owner)")
    {
        List list { listOf(me, n) };
        const LocalIndex beyond { ownedBy(last) + 5 };
        if (me == 0)
        {
            list.owners[0] = { last, beyond };
        }
        const std::string text {
            errorOf([&] { GhostList(env, nOwned, list.ghosts, list.owners, site); })
        };
        CHECK_THAT(text, Catch::Contains(siteText));
        CHECK_THAT(text, Catch::Contains("owner index " + std::to_string(beyond)));
        CHECK_THAT(text, Catch::Contains("(rank " + std::to_string(last) + ")"));
    }
    SECTION("a ghost cell listed twice")
    {
        List list { listOf(me, n) };
        const LocalIndex twice { listOf(last, n).ghosts[0] }; // the last rank's, on every rank
        if (me == last)
        {
            list.ghosts[2] = twice;
        }
        const std::string text {
            errorOf([&] { GhostList(env, nOwned, list.ghosts, list.owners, site); })
        };
        CHECK_THAT(text, Catch::Contains(siteText));
        CHECK_THAT(
            text, Catch::Contains("ghost cell " + std::to_string(twice) + " is listed twice")
        );
        CHECK_THAT(text, Catch::Contains("(rank " + std::to_string(last) + ")"));
    }
    SECTION("a ghost index that is an owned cell, and lists of different lengths")
    {
        List list { listOf(me, n) };
        if (me == 0)
        {
            list.ghosts[1] = 3;
        }
        const std::string owned {
            errorOf([&] { GhostList(env, nOwned, list.ghosts, list.owners, site); })
        };
        CHECK_THAT(owned, Catch::Contains("ghost cell 3): the ghost index is an owned cell"));
        CHECK_THAT(owned, Catch::Contains("(rank 0)"));
        List shorter { listOf(me, n) };
        if (me == last)
        {
            shorter.owners.pop_back();
        }
        const std::string lengths {
            errorOf([&] { GhostList(env, nOwned, shorter.ghosts, shorter.owners, site); })
        };
        CHECK_THAT(lengths, Catch::Contains(siteText));
        CHECK_THAT(lengths, Catch::Contains("ghost cells but"));
    }

    // after any of these, a good list still works on the same environment
    const List list { listOf(me, n) };
    GhostList good(env, nOwned, list.ghosts, list.owners);
    CHECK(good.receiveMap().totalSize() == list.ghosts.size());
}

TEST_CASE(
    "GhostList: its Communicator waits under the policy read when the list was made", "[ghostList]"
)
{
    const mpi::MPIEnvironment env;
    const int me { env.rank() };
    const int n { env.sizeRank() };
    if (n < 2)
    {
        return; // needs a peer that starts late
    }
    // every rank's one ghost is cell 0 of the next rank
    const std::vector<LocalIndex> ghosts { ownedBy(me) };
    const std::vector<GhostOwner> owners { { (me + 1) % n, 0 } };
    std::optional<GhostList> list;
    {
        const test::ScopedWaitTimeout made { "0.3", "error" };
        list.emplace(env, static_cast<std::size_t>(ownedBy(me)), ghosts, owners);
    }
    // another policy in the environment now: the list's, read when it was made, must rule
    const test::ScopedWaitTimeout later { "20", "error" };
    Communicator comm { std::move(*list).communicator() };
    std::vector<double> field(static_cast<std::size_t>(ownedBy(me)) + 1, -1.0);
    for (LocalIndex i { 0 }; i < ownedBy(me); ++i)
    {
        field[static_cast<std::size_t>(i)] = valueOf(globalId(me, i));
    }
    if (me == 0)
    {
        // rank 1, which owns rank 0's ghost, starts only after rank 0's wait has timed out
        comm.startComm(field, "late");
        const std::string text { errorOf([&] { comm.finaliseComm(field, "late"); }) };
        CHECK_THAT(text, Catch::Contains("FIELDSYNC_WAIT_TIMEOUT 0.3 s"));
        MPI_Barrier(env.comm());
        comm.finaliseComm(field, "late"); // the exchange stayed in flight: waited for again
    }
    else
    {
        MPI_Barrier(env.comm());
        comm.startComm(field, "late");
        comm.finaliseComm(field, "late");
    }
    CHECK(field.back() == valueOf(globalId((me + 1) % n, 0)));
}
