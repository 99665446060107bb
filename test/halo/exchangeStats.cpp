// SPDX-License-Identifier: MIT
// Communicator telemetry (ExchangeStats) against numbers known from the pattern generator alone:
// messages and bytes per exchange from the ghost lists each rank computes itself. Times are
// only checked to be non-negative (tests never time things).
#include "fieldsync_test/catch.hpp"

#include "haloPatterns.hpp"

#include "fieldsync/halo/communicator.hpp"
#include "fieldsync_test/countingAllocator.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

using fieldsync::halo::Communicator;
using fieldsync::test::Shape;
namespace mpi = fieldsync::mpi;

namespace
{
using View1 = Kokkos::View<double*>;
using ViewR = Kokkos::View<double**, Kokkos::LayoutRight>;

/** MPI messages and cells of one rank's exchange, from the generator (self excluded). */
struct Expected
{
    std::uint64_t sends { 0 };
    std::uint64_t receives { 0 };
    std::uint64_t cellsSent { 0 };
    std::uint64_t cellsReceived { 0 };
};

Expected expectedFor(int me, int n, Shape shape, std::uint64_t seed)
{
    Expected e;
    for (int r = 0; r < n; ++r)
    {
        if (r == me)
        {
            continue;
        }
        // what rank r ghosts from me, I send; what I ghost from r, I receive
        const auto out = fieldsync::test::ghostsOf(r, me, n, shape, seed, 12).size();
        const auto in = fieldsync::test::ghostsOf(me, r, n, shape, seed, 12).size();
        e.sends += out > 0 ? 1 : 0;
        e.receives += in > 0 ? 1 : 0;
        e.cellsSent += out;
        e.cellsReceived += in;
    }
    return e;
}

void requireTimesNonNegative(const fieldsync::halo::ExchangeStats& s)
{
    REQUIRE(s.packSeconds >= 0.0);
    REQUIRE(s.postSeconds >= 0.0);
    REQUIRE(s.waitSeconds >= 0.0);
    REQUIRE(s.unpackSeconds >= 0.0);
}
} // namespace

TEST_CASE("Exchange statistics count the messages and bytes of each key")
{
    const mpi::MPIEnvironment env;
    const int me = env.rank();
    const int n = env.sizeRank();
    for (const Shape shape : { Shape::Ring, Shape::AllToAll, Shape::Random })
    {
        for (const bool scatter : { false, true })
        {
            constexpr std::uint64_t seed { 17 };
            CAPTURE(static_cast<int>(shape), scatter);
            const auto setup = fieldsync::test::makeSetup(me, n, shape, seed, 12, scatter);
            const Expected e = expectedFor(me, n, shape, seed);
            Communicator comm(env, setup.send, setup.receive);
            View1 scalar("scalar", static_cast<std::size_t>(setup.nLocal));
            ViewR vector("vector", static_cast<std::size_t>(setup.nLocal), 3);
            const fieldsync::CommKey scalarKey { "stats::scalar" };
            const fieldsync::CommKey vectorKey { "stats::vector" };
            constexpr int steps { 7 };
            for (int step = 0; step < steps; ++step)
            {
                comm.startComm(scalar, scalarKey);
                comm.startComm(vector, vectorKey);
                if (step % 2 == 0)
                {
                    comm.waitComplete(vectorKey); // an explicit wait is counted as wait too
                }
                comm.finaliseComm(vector, vectorKey);
                comm.finaliseComm(scalar, scalarKey);
            }
            comm.startReverse(scalar, fieldsync::halo::ReverseOp::Sum, scalarKey);
            comm.finaliseReverse(scalar, scalarKey);

            const auto& s = comm.stats(scalarKey);
            REQUIRE(s.exchanges == steps);
            REQUIRE(s.messages == steps * (e.sends + e.receives));
            REQUIRE(s.bytesSent == steps * e.cellsSent * sizeof(double));
            REQUIRE(s.bytesReceived == steps * e.cellsReceived * sizeof(double));
            requireTimesNonNegative(s);

            const auto& v = comm.stats(vectorKey);
            REQUIRE(v.exchanges == steps);
            REQUIRE(v.messages == steps * (e.sends + e.receives));
            REQUIRE(v.bytesSent == steps * e.cellsSent * 3 * sizeof(double));
            REQUIRE(v.bytesReceived == steps * e.cellsReceived * 3 * sizeof(double));
            requireTimesNonNegative(v);

            // the reverse exchange of the key has its own statistics, directions swapped
            const auto& r = comm.stats(scalarKey, true);
            REQUIRE(r.exchanges == 1);
            REQUIRE(r.messages == e.sends + e.receives);
            REQUIRE(r.bytesSent == e.cellsReceived * sizeof(double));
            REQUIRE(r.bytesReceived == e.cellsSent * sizeof(double));
            requireTimesNonNegative(r);

            comm.resetStats();
            for (const auto* z : { &comm.stats(scalarKey), &comm.stats(vectorKey) })
            {
                REQUIRE(z->exchanges == 0);
                REQUIRE(z->messages == 0);
                REQUIRE(z->bytesSent == 0);
                REQUIRE(z->bytesReceived == 0);
                REQUIRE(z->packSeconds == 0.0);
                REQUIRE(z->postSeconds == 0.0);
                REQUIRE(z->waitSeconds == 0.0);
                REQUIRE(z->unpackSeconds == 0.0);
            }
            comm.startComm(scalar, scalarKey);
            comm.finaliseComm(scalar, scalarKey);
            REQUIRE(comm.stats(scalarKey).exchanges == 1);
            REQUIRE(comm.stats(scalarKey).bytesSent == e.cellsSent * sizeof(double));
        }
    }
}

TEST_CASE("Exchange statistics of a default (call-site) key and of an unknown key")
{
    const mpi::MPIEnvironment env;
    const int me = env.rank();
    const int n = env.sizeRank();
    const auto setup = fieldsync::test::makeSetup(me, n, Shape::Ring, 5, 12, false);
    const Expected e = expectedFor(me, n, Shape::Ring, 5);
    Communicator comm(env, setup.send, setup.receive);
    comm.setOptions({ .timing = true });
    View1 field("field", static_cast<std::size_t>(setup.nLocal));
    fieldsync::CommKey site; // the key of this line, as a default startComm uses
    comm.startComm(field, site);
    comm.finaliseComm(field);
    REQUIRE(comm.stats(site).exchanges == 1);
    REQUIRE(comm.stats(site).messages == e.sends + e.receives);
    REQUIRE_THROWS_WITH(
        comm.stats("never started"),
        Catch::Contains("no exchange 'never started' was ever started") &&
            Catch::Contains("exchangeStats.cpp")
    );
    REQUIRE_THROWS_WITH(comm.stats(site, true), Catch::Contains("no reverse exchange"));

    // timing off: the counters go on, the times stay zero
    comm.resetStats();
    comm.setOptions({ .timing = false });
    comm.startComm(field, site);
    comm.waitComplete(site);
    comm.finaliseComm(field, site);
    const auto& s = comm.stats(site);
    REQUIRE(s.exchanges == 1);
    REQUIRE(s.bytesSent == e.cellsSent * sizeof(double));
    REQUIRE(s.packSeconds == 0.0);
    REQUIRE(s.postSeconds == 0.0);
    REQUIRE(s.waitSeconds == 0.0);
    REQUIRE(s.unpackSeconds == 0.0);
}

TEST_CASE("A steady-state exchange allocates nothing (telemetry included)")
{
    const mpi::MPIEnvironment env;
    const int me = env.rank();
    const int n = env.sizeRank();
    for (const Shape shape : { Shape::Ring, Shape::Random })
    {
        // ghosts contiguous (0), scattered (1), or in shuffled blocks of 6 (lists of runs)
        for (const int block : { 0, 1, 6 })
        {
            for (const int persistent : { 0, 1, 2 }) // never, always, automatic
            {
                CAPTURE(static_cast<int>(shape), block, persistent);
                const auto setup =
                    fieldsync::test::makeSetup(me, n, shape, 23, 12, block > 0, std::max(block, 1));
                // check mode allocates (headers, mailbox): this test is of the exchange alone
                fieldsync::halo::CommitOptions unchecked;
                unchecked.check = false;
                Communicator comm(env, setup.send, setup.receive, unchecked);
                fieldsync::halo::ExchangeOptions options { .timing = true }; // telemetry included
                if (persistent < 2)
                {
                    options.persistentFrom =
                        persistent == 1 ? 0 : fieldsync::halo::ExchangeOptions::neverPersistent;
                }
                comm.setOptions(options);
                View1 scalar("scalar", static_cast<std::size_t>(setup.nLocal));
                ViewR vector("vector", static_cast<std::size_t>(setup.nLocal), 3);
                const fieldsync::CommKey key { "a key longer than the small-string buffer" };
                auto step = [&]
                {
                    comm.startComm(scalar, key);
                    comm.startComm(vector); // a call-site key
                    comm.finaliseComm(vector);
                    comm.finaliseComm(scalar, key);
                    comm.startReverse(scalar, fieldsync::halo::ReverseOp::Sum, key);
                    comm.finaliseReverse(scalar, key);
                };
                for (int i = 0; i < 3; ++i)
                {
                    step(); // first exchanges set up buffers, requests and index arrays
                }
                REQUIRE(
                    fieldsync_test::allocationsDuring(
                        [&]
                        {
                            for (int i = 0; i < 50; ++i)
                            {
                                step();
                            }
                        }
                    ) == 0
                );
                REQUIRE(comm.stats(key).exchanges == 53);
            }
        }
    }
}

namespace
{
std::vector<std::string>& regionLog()
{
    static std::vector<std::string> log;
    return log;
}
void recordPush(const char* name)
{
    regionLog().emplace_back(name);
}
void recordPop()
{
    regionLog().emplace_back("pop");
}
} // namespace

TEST_CASE("A Kokkos tool sees the pack, post, wait and unpack regions of an exchange")
{
    const mpi::MPIEnvironment env;
    const int me = env.rank();
    const int n = env.sizeRank();
    // a tool loaded before the Communicator is made (as KOKKOS_TOOLS_LIBS loads one at
    // Kokkos::initialize): here the callbacks a tool would register
    Kokkos::Tools::Experimental::set_push_region_callback(recordPush);
    Kokkos::Tools::Experimental::set_pop_region_callback(recordPop);
    {
        // scattered ghosts: packed and unpacked through the buffer, never in place
        const auto setup = fieldsync::test::makeSetup(me, n, Shape::Ring, 5, 12, true);
        Communicator comm(env, setup.send, setup.receive);
        View1 field("field", static_cast<std::size_t>(setup.nLocal));
        regionLog().clear();
        comm.startComm(field);
        comm.finaliseComm(field);
    }
    Kokkos::Tools::Experimental::set_push_region_callback(nullptr);
    Kokkos::Tools::Experimental::set_pop_region_callback(nullptr);
    const std::vector<std::string> expected { "fieldsync::halo::post",
                                              "fieldsync::halo::pack",
                                              "pop",
                                              "pop",
                                              "fieldsync::halo::wait",
                                              "pop",
                                              "fieldsync::halo::unpack",
                                              "pop" };
    if (n > 1) // one rank has no ghosts: nothing to pack
    {
        REQUIRE(regionLog() == expected);
    }
    else
    {
        REQUIRE(regionLog().front() == "fieldsync::halo::post");
        REQUIRE(
            std::count(regionLog().begin(), regionLog().end(), "pop") * 2 ==
            static_cast<std::ptrdiff_t>(regionLog().size())
        );
    }
}

TEST_CASE("The telemetry as JSON: this rank's keys, and every rank's in one file")
{
    const mpi::MPIEnvironment env;
    const int me = env.rank();
    const int n = env.sizeRank();
    const auto setup = fieldsync::test::makeSetup(me, n, Shape::Ring, 9, 12, false);
    const Expected e = expectedFor(me, n, Shape::Ring, 9);
    Communicator comm(env, setup.send, setup.receive);
    View1 field("field", static_cast<std::size_t>(setup.nLocal));
    const fieldsync::CommKey key { "json \"quoted\"\\key" };
    for (int step = 0; step < 3; ++step)
    {
        comm.startComm(field, key);
        comm.finaliseComm(field, key);
    }
    const std::string json = comm.statsJson();
    const std::string head = "{\"rank\": " + std::to_string(me) +
                             ", \"keys\": [{\"key\": \"json \\\"quoted\\\"\\\\key\", "
                             "\"reverse\": false, \"exchanges\": 3, \"messages\": " +
                             std::to_string(3 * (e.sends + e.receives)) +
                             ", \"bytesSent\": " + std::to_string(3 * e.cellsSent * 8) +
                             ", \"bytesReceived\": " + std::to_string(3 * e.cellsReceived * 8) +
                             ", \"packSeconds\": ";
    REQUIRE(json.substr(0, head.size()) == head);
    REQUIRE(json.substr(json.size() - 3) == "}]}");

    const std::string path = "fieldsync_stats_test.json";
    comm.writeStats(path);
    if (me == 0)
    {
        std::ifstream in(path);
        const std::string text((std::istreambuf_iterator<char>(in)), {});
        REQUIRE(text.rfind("{\"ranks\": [\n  {\"rank\": 0, ", 0) == 0);
        for (int r = 0; r < n; ++r)
        {
            REQUIRE(
                text.find("{\"rank\": " + std::to_string(r) + ", \"keys\"") != std::string::npos
            );
        }
        REQUIRE(text.find(json) != std::string::npos); // rank 0's own object, unchanged
        std::remove(path.c_str());
    }
    REQUIRE_THROWS_WITH(
        comm.writeStats("/nonexistent-directory/stats.json"),
        Catch::Contains("rank 0 could not write '/nonexistent-directory/stats.json'")
    );
}
