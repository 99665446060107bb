// SPDX-License-Identifier: MIT
// Declare, then commit: every disagreement between neighbours is an Error on every rank at
// commit, naming both ranks; the expected texts are built here from the pattern itself.
#include "fieldsync_test/catch.hpp"

#include "fieldsync/halo/communicator.hpp"
#include "fieldsync/halo/ghostList.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"
#include "fieldsync/mpi/reductions.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <source_location>
#include <string>
#include <vector>

using fieldsync::LocalIndex;
using fieldsync::halo::BackEnd;
using fieldsync::halo::CommitOptions;
using fieldsync::halo::Communicator;
using fieldsync::halo::RankSimplexCommMap;
namespace mpi = fieldsync::mpi;

namespace
{
/**
 * A ring: each rank owns 4 cells (local 0..3, global 4r..4r+3), sends them to the next rank and
 * receives the previous rank's 4 into ghosts 4..7, listed in @p ghostOrder order.
 */
struct Ring
{
    RankSimplexCommMap send;
    RankSimplexCommMap receive;
    std::vector<std::int64_t> globalIds;
    int next { 0 };
    int previous { 0 };
};

Ring ring(const mpi::MPIEnvironment& env, const std::vector<LocalIndex>& ghostOrder)
{
    const int me = env.rank();
    const int n = env.sizeRank();
    Ring r { RankSimplexCommMap(n), RankSimplexCommMap(n), {}, (me + 1) % n, (me + n - 1) % n };
    r.send.setRank(r.next, { 0, 1, 2, 3 });
    r.receive.setRank(r.previous, ghostOrder);
    for (int i = 0; i < 4; ++i)
    {
        r.globalIds.push_back(4 * me + i);
    }
    for (const LocalIndex ghost : { 4, 5, 6, 7 })
    {
        // ghost 4 + k holds the previous rank's cell k (the order the sender uses)
        r.globalIds.push_back(4 * r.previous + (ghost - 4));
    }
    return r;
}

/** Runs @p make and returns the Error's text on this rank ("" when nothing was thrown). */
template<typename F>
std::string errorOf(F&& make)
{
    try
    {
        make();
    }
    catch (const fieldsync::Error& e)
    {
        return e.what();
    }
    return {};
}
} // namespace

TEST_CASE("commit: the same counts in a different order are found through the global ids")
{
    const mpi::MPIEnvironment env;
    if (env.sizeRank() < 2)
    {
        return;
    }
    // rank 0 lists its ghosts in reverse: the counts agree, the order does not
    const Ring r = ring(
        env,
        env.rank() == 0 ? std::vector<LocalIndex> { 7, 6, 5, 4 }
                        : std::vector<LocalIndex> { 4, 5, 6, 7 }
    );
    const std::string error = errorOf(
        [&]
        { Communicator comm(env, r.send, r.receive, CommitOptions { .globalIds = r.globalIds }); }
    );
    const int sender = (env.sizeRank() - 1); // rank 0's previous rank
    const bool involved = env.rank() == 0 || env.rank() == sender;
    CAPTURE(error);
    REQUIRE_FALSE(error.empty()); // every rank throws
    if (involved)
    {
        REQUIRE_THAT(
            error,
            Catch::Contains(
                "rank " + std::to_string(sender) + " sends 4 cells to rank 0 in another order"
            )
        );
    }
    else
    {
        REQUIRE_THAT(error, Catch::Contains("rank 0"));
    }
    // without the global ids the order cannot be checked: the commit passes
    REQUIRE(errorOf([&] { Communicator comm(env, r.send, r.receive); }).empty());
}

TEST_CASE("commit: counts that differ name both ranks and both counts")
{
    const mpi::MPIEnvironment env;
    if (env.sizeRank() < 2)
    {
        return;
    }
    const Ring r = ring(
        env,
        env.rank() == 0 ? std::vector<LocalIndex> { 4, 5, 6 }
                        : std::vector<LocalIndex> { 4, 5, 6, 7 }
    );
    const std::string error = errorOf([&] { Communicator comm(env, r.send, r.receive); });
    const int sender = env.sizeRank() - 1;
    CAPTURE(error);
    REQUIRE_FALSE(error.empty());
    if (env.rank() == 0 || env.rank() == sender)
    {
        REQUIRE_THAT(
            error,
            Catch::Contains(
                "rank " + std::to_string(sender) +
                " sends 4 cells to rank 0, but rank 0's receive map expects 3 cells from rank " +
                std::to_string(sender)
            )
        );
    }
}

TEST_CASE("commit: a rank sending to a peer that expects nothing from it")
{
    const mpi::MPIEnvironment env;
    if (env.sizeRank() < 3)
    {
        return;
    }
    // every rank also sends cell 0 to the rank two ahead, which expects nothing from it
    const Ring base = ring(env, { 4, 5, 6, 7 });
    RankSimplexCommMap send(env.sizeRank());
    send.setRank(base.next, { 0, 1, 2, 3 });
    const int twoAhead = (env.rank() + 2) % env.sizeRank();
    if (twoAhead != base.next)
    {
        send.setRank(twoAhead, { 0 });
    }
    const std::string error = errorOf([&] { Communicator comm(env, send, base.receive); });
    CAPTURE(error);
    REQUIRE_FALSE(error.empty());
    if (twoAhead != base.next)
    {
        REQUIRE_THAT(
            error,
            Catch::Contains(
                "rank " + std::to_string(env.rank()) + " sends 1 cells to rank " +
                std::to_string(twoAhead) + ", but rank " + std::to_string(twoAhead) +
                "'s receive map expects nothing from rank " + std::to_string(env.rank())
            )
        );
    }
}

TEST_CASE("commit: a rank listing a peer that does not list it back is an Error on every rank")
{
    // Truth: the pattern itself. One rank (the lister) names one peer in one map, the peer names
    // nobody at all, so the peer's bid in the commit's agreement may come before the lister's
    // question reaches it (before the fix: silent, the exchange then "succeeded" with its
    // message left unmatched). The expected texts are built here from the pattern, and the
    // caller's line is the one passed in; every rank must raise (counted by an all-reduce).
    const mpi::MPIEnvironment env;
    const int n { env.sizeRank() };
    if (n < 2)
    {
        return;
    }
    const int me { env.rank() };
    for (const auto& [lister, peer] : { std::pair { 0, n - 1 }, std::pair { n - 1, 0 } })
    {
        for (const bool sends : { true, false })
        {
            CAPTURE(lister, peer, sends);
            RankSimplexCommMap send(n);
            RankSimplexCommMap receive(n);
            if (me == lister)
            {
                (sends ? send : receive).setRank(peer, { sends ? 0 : 1 });
            }
            const std::source_location here { std::source_location::current() };
            const std::string error =
                errorOf([&] { Communicator comm(env, send, receive, CommitOptions {}, here); });
            CAPTURE(error);
            int raised { error.empty() ? 0 : 1 };
            mpi::allReduce(raised, mpi::ReduceOp::Sum, env.comm());
            REQUIRE(raised == n); // every rank, none silent
            REQUIRE_THAT(
                error,
                Catch::Contains(std::string(here.file_name()) + ":" + std::to_string(here.line()))
            );
            const std::string l { std::to_string(lister) };
            const std::string p { std::to_string(peer) };
            if (me == lister || me == peer)
            {
                REQUIRE_THAT(
                    error,
                    Catch::Contains(
                        sends ? "rank " + l + " sends 1 cells to rank " + p + ", but rank " + p +
                                    "'s receive map expects nothing from rank " + l
                              : "rank " + p + " sends nothing to rank " + l + ", but rank " + l +
                                    "'s receive map expects 1 cells from rank " + p
                    )
                );
            }
            else
            {
                // the others name the lowest rank that found it (both ranks of the pair do)
                REQUIRE_THAT(
                    error, Catch::Contains("rank " + std::to_string(std::min(lister, peer)))
                );
            }
        }
    }
    // the environment is still good for a correct Communicator
    const Ring r = ring(env, { 4, 5, 6, 7 });
    Communicator good(env, r.send, r.receive);
    std::vector<double> field { 0.5, 1.5, 2.5, 3.5, -1, -1, -1, -1 };
    good.startComm(field);
    good.finaliseComm(field);
    REQUIRE(field[4] == 0.5);
}

TEST_CASE("commit: Communicators from maps and ghost lists made back to back stay apart")
{
    // both check and agree in one answered exchange on the same set-up duplicate; with no other
    // traffic between them a rank may start the next while another still answers the last
    const mpi::MPIEnvironment env;
    const int me { env.rank() };
    const Ring r = ring(env, { 4, 5, 6, 7 });
    const std::vector<LocalIndex> ghosts { 4, 5, 6, 7 };
    const std::vector<fieldsync::halo::GhostOwner> owners {
        { r.previous, 0 }, { r.previous, 1 }, { r.previous, 2 }, { r.previous, 3 }
    };
    std::vector<Communicator> comms;
    for (int k { 0 }; k < 20; ++k)
    {
        if (k % 3 == 2)
        {
            comms.push_back(fieldsync::halo::GhostList(env, 4, ghosts, owners).communicator());
        }
        else
        {
            comms.emplace_back(env, r.send, r.receive, CommitOptions { .globalIds = r.globalIds });
        }
    }
    for (std::size_t k { 0 }; k < comms.size(); ++k)
    {
        std::vector<double> field(8, -1.0);
        for (std::size_t i { 0 }; i < 4; ++i)
        {
            field[i] = 0.5 + static_cast<double>(r.globalIds[i]) + 100.0 * static_cast<double>(k);
        }
        comms[k].startComm(field);
        comms[k].finaliseComm(field);
        for (std::size_t g { 4 }; g < 8; ++g)
        {
            CAPTURE(me, k, g);
            REQUIRE(
                field[g] ==
                0.5 + static_cast<double>(r.globalIds[g]) + 100.0 * static_cast<double>(k)
            );
        }
    }
}

TEST_CASE("commit: maps for another number of ranks on one rank are an Error on every rank")
{
    const mpi::MPIEnvironment env;
    const int n { env.sizeRank() };
    const int last { n - 1 };
    const Ring r = ring(env, { 4, 5, 6, 7 });
    // the last rank alone passes a send map for one rank more: it asks nobody, and the
    // agreement tells the others, so no rank is left waiting for it
    const std::string error = errorOf(
        [&]
        {
            if (env.rank() == last)
            {
                Communicator comm(env, RankSimplexCommMap(n + 1), r.receive);
            }
            else
            {
                Communicator comm(env, r.send, r.receive);
            }
        }
    );
    CAPTURE(error);
    CHECK_FALSE(error.empty()); // every rank throws, none waits
    if (env.rank() == last)
    {
        CHECK_THAT(
            error, Catch::Contains("the send map is for " + std::to_string(n + 1) + " ranks")
        );
    }
    else if (env.rank() == 0 || env.rank() == last - 1)
    {
        // its ring neighbour asked nothing and answered as if it listed nothing: named
        CHECK_THAT(error, Catch::Contains("rank " + std::to_string(last)));
    }
    // the environment is still good for the next Communicator
    Communicator good(env, r.send, r.receive);
    std::vector<double> field { 0.5, 1.5, 2.5, 3.5, -1, -1, -1, -1 };
    good.startComm(field);
    good.finaliseComm(field);
    REQUIRE(field[4] == 0.5);
}

TEST_CASE("commit: send and receive maps passed in swapped order")
{
    const mpi::MPIEnvironment env;
    const Ring r = ring(env, { 4, 5, 6, 7 });
    // swapped: the receive map (ghosts 4..7) passed as the send map
    const std::string error =
        errorOf([&]
                { Communicator comm(env, r.receive, r.send, CommitOptions { .ownedCells = 4 }); });
    CAPTURE(error);
    REQUIRE_THAT(error, Catch::Contains("swapped order"));
    REQUIRE(errorOf(
                [&]
                { Communicator comm(env, r.send, r.receive, CommitOptions { .ownedCells = 4 }); }
    ).empty());
}

TEST_CASE("declare, then commit: no exchange before the commit, one commit")
{
    const mpi::MPIEnvironment env;
    const Ring r = ring(env, { 4, 5, 6, 7 });
    Communicator comm = Communicator::declare(env, r.send, r.receive);
    REQUIRE_FALSE(comm.committed());
    Kokkos::View<double*> field("field", 8);
    REQUIRE_THROWS_WITH(comm.startComm(field), Catch::Contains("not committed"));
    comm.commit(CommitOptions { .globalIds = r.globalIds, .ownedCells = 4 });
    REQUIRE(comm.committed());
    REQUIRE_THROWS_WITH(comm.commit(), Catch::Contains("already committed"));
    // the committed pattern exchanges: ghosts receive the previous rank's global ids
    auto host = Kokkos::create_mirror_view(field);
    for (int i = 0; i < 8; ++i)
    {
        host(i) = i < 4 ? static_cast<double>(r.globalIds[static_cast<std::size_t>(i)]) : -1.0;
    }
    Kokkos::deep_copy(field, host);
    comm.startComm(field);
    comm.finaliseComm(field);
    Kokkos::deep_copy(host, field);
    for (int i = 0; i < 8; ++i)
    {
        REQUIRE(host(i) == static_cast<double>(r.globalIds[static_cast<std::size_t>(i)]));
    }
}

TEST_CASE("commit: each back end chosen explicitly exchanges the same ghosts")
{
    const mpi::MPIEnvironment env;
    const Ring r = ring(env, { 4, 5, 6, 7 });
    std::vector<BackEnd> backEnds { BackEnd::PointToPoint, BackEnd::NeighbourCollective };
    if (fieldsync::halo::persistentNeighbourAvailable()) // else: test/halo/persistentNeighbour
    {
        backEnds.push_back(BackEnd::PersistentNeighbour);
    }
    backEnds.push_back(BackEnd::Auto);
    for (const BackEnd backEnd : backEnds)
    {
        CAPTURE(fieldsync::halo::toString(backEnd));
        Communicator comm(env, r.send, r.receive, CommitOptions { .backEnd = backEnd });
        REQUIRE(comm.backEnd() != BackEnd::Auto); // Auto resolves to one of the others
        if (backEnd != BackEnd::Auto)
        {
            REQUIRE(comm.backEnd() == backEnd);
        }
        Kokkos::View<double*> field("field", 8);
        auto host = Kokkos::create_mirror_view(field);
        for (int step = 0; step < 3; ++step)
        {
            for (int i = 0; i < 8; ++i)
            {
                host(i) = i < 4 ? static_cast<double>(r.globalIds[static_cast<std::size_t>(i)]) +
                                      1000.0 * step
                                : -1.0;
            }
            Kokkos::deep_copy(field, host);
            comm.startComm(field);
            comm.finaliseComm(field);
            Kokkos::deep_copy(host, field);
            for (int i = 0; i < 8; ++i)
            {
                REQUIRE(
                    host(i) ==
                    static_cast<double>(r.globalIds[static_cast<std::size_t>(i)]) + 1000.0 * step
                );
            }
        }
    }
}
