// SPDX-License-Identifier: MIT
// No rank left hanging (doc/reliability.md): a rank that leaves a halo exchange with an Error
// sends a notice (src/halo/noticeBox.*) to the exchange's peers, and a peer waiting on that
// exchange ends in an Error naming that rank and its message. The tests run with a 30 s wait
// time-out whose action is warn: a notice that never came would be a hang (a CTest time-out),
// never an Error, so the tests do not rely on the time-out firing. Then a correct exchange on a
// new Communicator (which may reuse the freed one's MPI context) gives exact ghosts: nothing
// stale leaks into it. A peer that only polls isComplete is released too, and a key whose start
// failed cannot start again on the same Communicator (on the failing rank and on its peers).
// Run on 2 and 3 ranks, with check mode off and on.
#include "fieldsync_test/catch.hpp"
#include "fieldsync_test/errorText.hpp"
#include "fieldsync_test/scopedWaitTimeout.hpp"

#include "haloPatterns.hpp"

#include "fieldsync/halo/communicator.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"

#include <Kokkos_Core.hpp>

#include <chrono>
#include <optional>
#include <string>

namespace fh = fieldsync::halo;
namespace fm = fieldsync::mpi;
namespace ft = fieldsync::test;

namespace
{
using Field = Kokkos::View<double*, Kokkos::HostSpace>;

/** @brief A field of @p setup: owned cells their truth, ghosts -1. */
Field field(const ft::Setup& setup)
{
    Field f("f", static_cast<std::size_t>(setup.nLocal));
    for (int c = 0; c < setup.nLocal; ++c)
    {
        f(c) = c < setup.nOwned ? ft::truth(setup.globalId[static_cast<std::size_t>(c)], 0) : -1.0;
    }
    return f;
}

/** @brief The cells of @p f that differ from the truth of their global id. */
int wrongCells(const Field& f, const ft::Setup& setup)
{
    int wrong { 0 };
    for (int c = 0; c < setup.nLocal; ++c)
    {
        wrong += f(c) == ft::truth(setup.globalId[static_cast<std::size_t>(c)], 0) ? 0 : 1;
    }
    return wrong;
}

/** @brief Options with check mode @p check. */
fh::CommitOptions options(bool check)
{
    fh::CommitOptions o;
    o.check = check;
    return o;
}

/**
 * @brief Checks the Error @p what of rank @p me: rank 0's own (a field too small), or on the
 * others the notice's Error for exchange @p key, naming rank 0 and its message.
 */
void checkReleased(const std::optional<std::string>& what, int me, const std::string& key)
{
    INFO((what ? *what : std::string("no Error")));
    REQUIRE(what.has_value());
    CHECK(what->find("rank " + std::to_string(me) + ":") != std::string::npos);
    CHECK(what->find("noticeBox.cpp:") != std::string::npos);
    CHECK(what->find("beyond the field of 1 cells") != std::string::npos);
    if (me != 0)
    {
        CHECK(what->find("exchange '" + key + "' (started at ") != std::string::npos);
        CHECK(
            what->find("rank 0 left this exchange with an Error, so its messages will not come: "
                       "fieldsync: rank 0: ") != std::string::npos
        );
    }
}

/** @brief Whether every rank's @p ok is set. */
bool everyRank(bool ok)
{
    const int mine { ok ? 1 : 0 };
    int all { 0 };
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all == 1;
}
} // namespace

TEST_CASE("a rank that throws in startComm releases the peers waiting on it", "[notice]")
{
    const ft::ScopedWaitTimeout timeout("30", "warn"); // the notice, not the time-out, ends it
    fm::MPIEnvironment env;
    const int me = env.rank();
    const ft::Setup setup = ft::makeSetup(me, env.sizeRank(), ft::Shape::AllToAll, 3, 5, false);
    for (const bool check : { false, true })
    {
        for (int round = 0; round < 2; ++round) // the second Communicator may reuse the context
        {
            INFO("check mode " << check << ", round " << round);
            {
                fh::Communicator comm(env, setup.send, setup.receive, options(check));
                Field f = field(setup);
                Field tooSmall("tooSmall", 1);
                const auto what = ft::errorText(
                    [&]
                    {
                        if (me == 0) // bad input on rank 0 only: the others start and wait
                        {
                            comm.startComm(tooSmall, "U");
                            return;
                        }
                        comm.startComm(f, "U");
                        comm.finaliseComm(f, "U");
                    }
                );
                checkReleased(what, me, "U");
                CHECK(comm.describeInFlight() == " none");
                CHECK(everyRank(true)); // every rank got here: none was left waiting
            }
            // a new Communicator, the same key: exact ghosts, no stale message or notice
            fh::Communicator fresh(env, setup.send, setup.receive, options(check));
            for (int step = 0; step < 2; ++step)
            {
                Field f = field(setup);
                fresh.startComm(f, "U");
                fresh.finaliseComm(f, "U");
                CHECK(wrongCells(f, setup) == 0);
            }
        }
    }
}

TEST_CASE("a rank that throws in a later startComm releases the peers", "[notice]")
{
    const ft::ScopedWaitTimeout timeout("30", "warn");
    fm::MPIEnvironment env;
    const int me = env.rank();
    const ft::Setup setup = ft::makeSetup(me, env.sizeRank(), ft::Shape::AllToAll, 5, 4, false);
    for (const bool check : { false, true })
    {
        INFO("check mode " << check);
        fh::Communicator comm(env, setup.send, setup.receive, options(check));
        Field f = field(setup);
        comm.startComm(f, "V"); // a correct step first: the notice names the second start
        comm.finaliseComm(f, "V");
        CHECK(wrongCells(f, setup) == 0);
        Field tooSmall("tooSmall", 1);
        const auto what = ft::errorText(
            [&]
            {
                comm.startComm(me == 0 ? tooSmall : f, "V");
                comm.finaliseComm(f, "V");
            }
        );
        REQUIRE(what.has_value());
        CHECK(what->find("beyond the field of 1 cells") != std::string::npos);
        CHECK((me == 0 || what->find("rank 0 left this exchange") != std::string::npos));
        CHECK(everyRank(true));
        // the same Communicator goes on with another key (the failed start's messages to rank
        // 0 may still arrive for 'V': doc/reliability.md, "What is not covered yet")
        for (int step = 0; step < 2; ++step)
        {
            Field g = field(setup);
            comm.startComm(g, "W");
            comm.finaliseComm(g, "W");
            CHECK(wrongCells(g, setup) == 0);
        }
    }
}

TEST_CASE("a peer that only polls isComplete is released by the notice", "[notice]")
{
    const ft::ScopedWaitTimeout timeout("30", "warn");
    fm::MPIEnvironment env;
    const int me = env.rank();
    const ft::Setup setup = ft::makeSetup(me, env.sizeRank(), ft::Shape::AllToAll, 3, 5, false);
    for (const bool check : { false, true })
    {
        INFO("check mode " << check);
        fh::Communicator comm(env, setup.send, setup.receive, options(check));
        Field f = field(setup);
        Field tooSmall("tooSmall", 1);
        long polls { 0 };
        const auto what = ft::errorText(
            [&]
            {
                if (me == 0) // bad input on rank 0 only: the others start and poll
                {
                    comm.startComm(tooSmall, "P");
                    return;
                }
                comm.startComm(f, "P");
                // a generous bound, so that a missing notice ends the loop (and fails below)
                // instead of hanging; the notice ends it long before
                const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
                while (!comm.isComplete(f) && std::chrono::steady_clock::now() < end)
                {
                    ++polls;
                }
            }
        );
        INFO("after " << polls << " polls");
        checkReleased(what, me, "P");
        CHECK(comm.describeInFlight() == " none");
        CHECK(everyRank(true));
    }
}

TEST_CASE("a key whose start failed cannot start again on the same Communicator", "[notice]")
{
    const ft::ScopedWaitTimeout timeout("30", "warn");
    fm::MPIEnvironment env;
    const int me = env.rank();
    const ft::Setup setup = ft::makeSetup(me, env.sizeRank(), ft::Shape::AllToAll, 3, 5, false);
    for (const bool check : { false, true })
    {
        INFO("check mode " << check);
        fh::Communicator comm(env, setup.send, setup.receive, options(check));
        Field f = field(setup);
        Field tooSmall("tooSmall", 1);
        const auto failed = ft::errorText(
            [&]
            {
                comm.startComm(me == 0 ? tooSmall : f, "R"); // the peers' messages to rank 0
                comm.finaliseComm(f, "R");                   // may arrive for 'R' any time
            }
        );
        REQUIRE(failed.has_value());
        CHECK(everyRank(true));
        // the same key again, now correct everywhere: refused on the failing rank and on the
        // peers that the notice released, each naming the key, the first failure and the remedy
        for (int step = 0; step < 2; ++step)
        {
            INFO("restart " << step);
            Field g = field(setup);
            const auto what = ft::errorText(
                [&]
                {
                    comm.startComm(g, "R");
                    comm.finaliseComm(g, "R");
                }
            );
            INFO((what ? *what : std::string("no Error")));
            REQUIRE(what.has_value());
            CHECK(what->find("rank " + std::to_string(me) + ":") != std::string::npos);
            CHECK(what->find("noticeBox.cpp:") != std::string::npos);
            CHECK(
                what->find("exchange 'R' cannot start again on this Communicator, where an "
                           "earlier start of it failed (first failure: ") != std::string::npos
            );
            CHECK(
                what->find(
                    me == 0 ? "beyond the field of 1 cells" : "rank 0 left it with an Error"
                ) != std::string::npos
            );
            CHECK(what->find("construct a new Communicator") != std::string::npos);
            CHECK(comm.describeInFlight() == " none");
            CHECK(everyRank(true));
        }
        // another key goes on, on the same Communicator; a new one takes the key again
        fh::Communicator fresh(env, setup.send, setup.receive, options(check));
        for (int step = 0; step < 2; ++step)
        {
            Field g = field(setup);
            comm.startComm(g, "S");
            comm.finaliseComm(g, "S");
            CHECK(wrongCells(g, setup) == 0);
            Field h = field(setup);
            fresh.startComm(h, "R");
            fresh.finaliseComm(h, "R");
            CHECK(wrongCells(h, setup) == 0);
        }
    }
}
