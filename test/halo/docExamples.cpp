// SPDX-License-Identifier: MIT
// The code of doc/halo.md and README.md, compiled and run; tools/docs/checkSnippets.py (test
// docs.snippets) holds each page's block equal to its region here.
#include "fieldsync_test/catch.hpp"

#include "fieldsync/halo/communicator.hpp"
#include "fieldsync/halo/ghostList.hpp"
#include "fieldsync/halo/graphTopologyOf.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <source_location>
#include <span>
#include <string>
#include <vector>

using namespace fieldsync;
using namespace fieldsync::halo;

namespace
{
// A periodic 1-D row of cells, `owned` per rank; one ghost on each side: local cell 0 .. owned-1
// are owned, `owned` is the left ghost, `owned + 1` the right ghost.
struct Row
{
    RankSimplexCommMap send;
    RankSimplexCommMap receive;
};

Row periodicRow(const mpi::MPIEnvironment& env, LocalIndex owned)
{
    const int n = env.sizeRank();
    const int left = (env.rank() + n - 1) % n;
    const int right = (env.rank() + 1) % n;
    Row row { RankSimplexCommMap(n), RankSimplexCommMap(n) };
    if (left == right) // one or two ranks: both ghosts come from the same rank
    {
        row.send.setRank(left, { 0, owned - 1 });
        row.receive.setRank(left, { owned + 1, owned });
    }
    else
    {
        row.send.setRank(left, { 0 });
        row.send.setRank(right, { owned - 1 });
        row.receive.setRank(left, { owned });
        row.receive.setRank(right, { owned + 1 });
    }
    return row;
}
} // namespace

TEST_CASE("doc/halo.md: the seed's Communicator example")
{
    const LocalIndex owned { 4 };
    // [seed-communicator]
    mpi::MPIEnvironment MPIEnviron;
    Communicator comm;

    Kokkos::View<int*, Kokkos::HostSpace> field(
        "field", owned + 2
    ); // the seed's SerialExecutor field
    // ... size and populate field data: owned cell i of rank r holds 100 r + i
    for (LocalIndex i = 0; i < owned; ++i)
    {
        field(i) = 100 * MPIEnviron.rank() + i;
    }

    // Set up buffer to local map
    RankSimplexCommMap rankSendMap(MPIEnviron.sizeRank());
    RankSimplexCommMap rankReceiveMap(MPIEnviron.sizeRank());
    // ... set up of send/receive maps per rank
    const Row row = periodicRow(MPIEnviron, owned);
    rankSendMap = row.send;
    rankReceiveMap = row.receive;

    // Set up a communicator.
    comm = Communicator(MPIEnviron, rankSendMap, rankReceiveMap);

    // The seed writes `file_name() + line()`, which is pointer arithmetic in C++; the intent:
    std::string loc = std::string(std::source_location::current().file_name()) + ":" +
                      std::to_string(std::source_location::current().line());
    comm.startComm(field, loc);
    comm.isComplete(loc);
    comm.finaliseComm(field, loc);
    // [seed-communicator]
    const int n = MPIEnviron.sizeRank();
    const int left = (MPIEnviron.rank() + n - 1) % n;
    const int right = (MPIEnviron.rank() + 1) % n;
    REQUIRE(field(owned) == 100 * left + owned - 1);
    REQUIRE(field(owned + 1) == 100 * right);
}

TEST_CASE("doc/halo.md: a time step with overlap, several fields and a reverse exchange")
{
    const mpi::MPIEnvironment env;
    const LocalIndex owned { 8 };
    const Row row = periodicRow(env, owned);
    const double r = env.rank();
    // [time-step]
    Communicator comm(env, row.send, row.receive);
    Kokkos::View<double*> temperature("T", owned + 2);
    Kokkos::View<double**, Kokkos::LayoutRight> velocity("U", owned + 2, 3);
    Kokkos::deep_copy(temperature, r);
    Kokkos::deep_copy(velocity, r);

    comm.startComm(temperature); // key: this line (file:line)
    // ... update interior cells while the ghosts travel ...
    comm.finaliseComm(temperature); // found by the view's data pointer

    comm.startComm(velocity, "velocity"); // an explicit key
    comm.waitComplete("velocity");        // optional: wait without unpacking
    comm.finaliseComm(velocity, "velocity");

    // two fields of one type, one message per neighbour
    Kokkos::View<double*> pressure("p", owned + 2);
    Kokkos::deep_copy(pressure, 2 * r);
    comm.startComm({ temperature, pressure }, "T and p");
    comm.finaliseComm({ temperature, pressure }, "T and p");

    // reverse: ghost values go back to their owners and are added there
    Kokkos::View<double*> flux("flux", owned + 2);
    Kokkos::deep_copy(flux, 1.0);
    comm.startReverse(flux, ReverseOp::Sum, "flux");
    comm.finaliseReverse(flux, "flux");
    // [time-step]
    const int n = env.sizeRank();
    const double left = (env.rank() + n - 1) % n;
    const double right = (env.rank() + 1) % n;
    // read on the host through mirrors, so the test is right for device memory too
    const auto hostTemperature =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace {}, temperature);
    const auto hostPressure = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace {}, pressure);
    const auto hostVelocity = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace {}, velocity);
    const auto hostFlux = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace {}, flux);
    REQUIRE(hostTemperature(owned) == left);
    REQUIRE(hostTemperature(owned + 1) == right);
    REQUIRE(hostPressure(owned) == 2 * left);
    REQUIRE(hostVelocity(owned + 1, 2) == right);
    REQUIRE(hostFlux(0) == 2.0);         // its own 1 plus the left neighbour's ghost copy
    REQUIRE(hostFlux(owned - 1) == 2.0); // and the right neighbour's
    REQUIRE(hostFlux(1) == 1.0);         // no ghost copy anywhere
}

TEST_CASE("doc/halo.md: time-out settings")
{
    const mpi::MPIEnvironment env;
    const Row row = periodicRow(env, 4);
    // [time-out]
    Communicator comm(env, row.send, row.receive);
    ExchangeOptions options = comm.options();                // the knobs in force
    options.waitPolicy = { 5.0, mpi::TimeoutAction::Error }; // throw after 5 s instead of warning
    options.staging = mpi::Staging::Always;                  // force host staging (tests)
    comm.setOptions(options);
    // [time-out]
    REQUIRE(comm.options().waitPolicy->timeoutSeconds == 5.0);
    REQUIRE(comm.options().waitPolicy->action == mpi::TimeoutAction::Error);
    REQUIRE(comm.options().staging == mpi::Staging::Always);
    std::vector<double> values(6, env.rank());
    comm.startComm(values);
    comm.finaliseComm(values);
    const int n = env.sizeRank();
    REQUIRE(values[4] == (env.rank() + n - 1) % n);
}

TEST_CASE("doc/halo.md: telemetry")
{
    const mpi::MPIEnvironment env;
    const LocalIndex owned { 8 };
    const Row row = periodicRow(env, owned);
    Communicator comm(env, row.send, row.receive);
    Kokkos::View<double*> u("u", owned + 2);
    // [telemetry]
    comm.setOptions({ .timing = true }); // the four times (the counters are always kept)
    const CommKey key { "heat::u" };
    comm.startComm(u, key);
    // ... interior work ...
    comm.finaliseComm(u, key);
    const ExchangeStats& s = comm.stats(key); // comm.stats(key, true): its reverse exchange
    std::printf(
        "%llu exchanges, %llu messages, %llu B sent, %llu B received\n",
        static_cast<unsigned long long>(s.exchanges),
        static_cast<unsigned long long>(s.messages),
        static_cast<unsigned long long>(s.bytesSent),
        static_cast<unsigned long long>(s.bytesReceived)
    );
    std::printf(
        "pack %g s, post %g s, wait %g s, unpack %g s\n",
        s.packSeconds,
        s.postSeconds,
        s.waitSeconds,
        s.unpackSeconds
    );
    // [telemetry]
    // two cells each way; one rank: a self copy, no message; two ranks: one neighbour
    const int n = env.sizeRank();
    const std::uint64_t neighbours = n == 1 ? 0 : (n == 2 ? 1 : 2);
    REQUIRE(s.exchanges == 1);
    REQUIRE(s.messages == 2 * neighbours);
    REQUIRE(s.bytesSent == (n == 1 ? 0 : 2 * sizeof(double)));
    REQUIRE(s.bytesReceived == (n == 1 ? 0 : 2 * sizeof(double)));
    comm.resetStats(); // every key back to zero
    REQUIRE(comm.stats(key).exchanges == 0);
}

TEST_CASE("doc/halo.md: a Communicator from a ghost list")
{
    const mpi::MPIEnvironment env;
    const int n { env.sizeRank() };
    const int left { (env.rank() + n - 1) % n };
    const int right { (env.rank() + 1) % n };
    const LocalIndex owned { 4 };
    // [ghost-list]
    // the periodic row again: my cells 0..3, ghost 4 is the left neighbour's last cell,
    // ghost 5 the right neighbour's first cell
    const std::vector<LocalIndex> ghosts { owned, owned + 1 };
    const std::vector<GhostOwner> owners { { left, owned - 1 }, { right, 0 } };
    GhostList list(env, owned, ghosts, owners); // collective: owners learn what to send
    Communicator comm { list.communicator() };
    // [ghost-list]
    std::vector<double> field(owned + 2, -1.0);
    for (LocalIndex i = 0; i < owned; ++i)
    {
        field[static_cast<std::size_t>(i)] = 100.0 * env.rank() + i;
    }
    comm.startComm(field);
    comm.finaliseComm(field);
    REQUIRE(field[4] == 100.0 * left + owned - 1);
    REQUIRE(field[5] == 100.0 * right);
}

TEST_CASE("README.md: an exchange, and a Communicator from a ghost list")
{
    const mpi::MPIEnvironment mpiEnv;
    const int n { mpiEnv.sizeRank() };
    const int left { (mpiEnv.rank() + n - 1) % n };
    const int right { (mpiEnv.rank() + 1) % n };
    const LocalIndex owned { 4 };
    const Row row { periodicRow(mpiEnv, owned) };
    const RankSimplexCommMap& sendMap { row.send };
    const RankSimplexCommMap& receiveMap { row.receive };
    std::vector<double> field(owned + 2, -1.0); // owned cell i of rank r holds 100 r + i
    for (LocalIndex i = 0; i < owned; ++i)
    {
        field[static_cast<std::size_t>(i)] = 100.0 * mpiEnv.rank() + i;
    }
    {
        // [readme-exchange]
        fieldsync::halo::Communicator comm(mpiEnv, sendMap, receiveMap);
        comm.startComm(field); // pack and post; the key is this line (file:line)
        // ... update interior cells while the messages travel ...
        comm.finaliseComm(field); // wait, unpack into the ghost cells
        // [readme-exchange]
    }
    REQUIRE(field[4] == 100.0 * left + owned - 1);
    REQUIRE(field[5] == 100.0 * right);

    std::fill(field.begin() + owned, field.end(), -1.0);
    const LocalIndex nOwned { owned };
    const std::vector<LocalIndex> ghostCells { owned, owned + 1 };
    const std::vector<GhostOwner> ghostOwners { { left, owned - 1 }, { right, 0 } };
    // [readme-ghost-list]
    fieldsync::halo::GhostList list(mpiEnv, nOwned, ghostCells, ghostOwners);
    fieldsync::halo::Communicator comm = list.communicator();
    // [readme-ghost-list]
    comm.startComm(field);
    comm.finaliseComm(field);
    REQUIRE(field[4] == 100.0 * left + owned - 1);
    REQUIRE(field[5] == 100.0 * right);
}

TEST_CASE("doc/topology.md: a graph topology of a Communicator, declare then commit")
{
    const mpi::MPIEnvironment env;
    const int n { env.sizeRank() };
    const LocalIndex owned { 4 };
    const Row row { periodicRow(env, owned) };
    {
        const Communicator comm(env, row.send, row.receive);
        // [graph-of]
        mpi::GraphTopology graph = halo::graphTopologyOf(comm, sizeof(double), true);
        // [graph-of]
        // each neighbour rank once: the rank itself on one rank (its row wraps onto itself), the
        // other rank on two, the left and the right one on more
        const std::size_t neighbours = n <= 2 ? 1 : 2;
        CHECK(graph.sources().size() == neighbours);
        CHECK(graph.destinations().size() == neighbours);
    }
    // global ids of the periodic row: owned cell i of rank r is r * owned + i
    const auto N { static_cast<std::int64_t>(n) * owned };
    const std::int64_t first { static_cast<std::int64_t>(env.rank()) * owned };
    std::vector<std::int64_t> ids(static_cast<std::size_t>(owned + 2));
    for (LocalIndex i = 0; i < owned; ++i)
    {
        ids[static_cast<std::size_t>(i)] = first + i;
    }
    ids[static_cast<std::size_t>(owned)] = (first + N - 1) % N;     // the left neighbour's last
    ids[static_cast<std::size_t>(owned + 1)] = (first + owned) % N; // the right neighbour's first
    const std::span<const std::int64_t> localToGlobal { ids };
    const std::int64_t nOwned { owned };
    const RankSimplexCommMap& sendMap { row.send };
    const RankSimplexCommMap& receiveMap { row.receive };
    // [declare-commit]
    auto comm = fieldsync::halo::Communicator::declare(env, sendMap, receiveMap); // collective
    comm.commit({ .globalIds = localToGlobal, .ownedCells = nOwned });            // collective
    // [declare-commit]
    std::vector<double> field(static_cast<std::size_t>(owned + 2), -1.0);
    for (std::size_t i = 0; i < field.size(); ++i)
    {
        field[i] = i < static_cast<std::size_t>(owned) ? static_cast<double>(ids[i]) : -1.0;
    }
    comm.startComm(field);
    comm.finaliseComm(field);
    CHECK(field[static_cast<std::size_t>(owned)] == static_cast<double>(ids[owned]));
    CHECK(field[static_cast<std::size_t>(owned + 1)] == static_cast<double>(ids[owned + 1]));
}
