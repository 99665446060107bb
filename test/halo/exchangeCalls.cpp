// SPDX-License-Identifier: MIT
// The MPI calls of one exchange, counted (issue #37): in the steady state an exchange makes at
// most 4 calls per neighbour pair (start, and the completion of the sends and receives), as
// hand-written Irecv + Isend + Waitall does, and the values it moves are right.
//
// How it counts: the program defines the MPI functions the library's exchange and wait may call
// (PMPI interposition: each counts, then forwards to its PMPI_ twin), so it is its own program.
// Only calls made inside startComm and finaliseComm are counted. Tests (MPI_Test*) depend on
// timing and everything else does not, so they are counted apart:
// - every call but the tests is bounded per exchange, whatever the timing: the starts of both
//   directions and a size check (MPI_Get_count) per receive;
// - the tests are counted where the data has already arrived: between startComm and
//   finaliseComm every rank passes a barrier (the test's own, not counted), so each peer's sends
//   were posted before the wait begins, and a small (eager) message is then completed by the
//   wait's first test. The sum over many exchanges after a warm-up, divided by the exchanges
//   and neighbour pairs, must be at most 4: a straggling test now and then is absorbed by the
//   average, a wait that polls or listens on every test is not;
// - back to back, without the barrier, the tests depend on timing and are not bounded, but the
//   rest is, and the listens for peers' notices (MPI_Iprobe) are bounded by the time waited: at
//   most one per started millisecond of a wait (mpi::waitWithTimeout).
// Check mode and fault injection add calls on purpose (headers, tests that return early): the
// test runs without both (test/halo/CMakeLists.txt).
#include "fieldsync_test/catch.hpp"

#include "haloPatterns.hpp"

#include "fieldsync/halo/communicator.hpp"

#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <set>
#include <string>

#include <mpi.h>

namespace
{
/** The calls counted, by kind. */
enum Kind : std::size_t
{
    start, // MPI_Start, MPI_Startall, MPI_Isend, MPI_Irecv, MPI_Ineighbor_alltoallv
    test,  // MPI_Test, MPI_Testall, MPI_Testany, MPI_Testsome
    wait,  // MPI_Wait, MPI_Waitall, MPI_Waitany, MPI_Waitsome
    probe, // MPI_Iprobe, MPI_Probe
    other, // MPI_Get_count, MPI_Request_get_status, MPI_Recv, MPI_Send, MPI_Cancel
    kinds
};

std::array<std::uint64_t, kinds> counts {};
bool counting { false };

void count(Kind kind) noexcept
{
    if (counting)
    {
        ++counts[kind];
    }
}
} // namespace

// The interposed MPI functions (the library's calls resolve to these, each forwards to PMPI_).
extern "C"
{
    int MPI_Start(MPI_Request* request)
    {
        count(start);
        return PMPI_Start(request);
    }
    int MPI_Startall(int n, MPI_Request requests[])
    {
        count(start);
        return PMPI_Startall(n, requests);
    }
    int MPI_Isend(
        const void* data, int n, MPI_Datatype type, int to, int tag, MPI_Comm comm, MPI_Request* r
    )
    {
        count(start);
        return PMPI_Isend(data, n, type, to, tag, comm, r);
    }
    int MPI_Irecv(
        void* data, int n, MPI_Datatype type, int from, int tag, MPI_Comm comm, MPI_Request* r
    )
    {
        count(start);
        return PMPI_Irecv(data, n, type, from, tag, comm, r);
    }
    int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status)
    {
        count(test);
        return PMPI_Test(request, flag, status);
    }
    int MPI_Testall(int n, MPI_Request requests[], int* flag, MPI_Status statuses[])
    {
        count(test);
        return PMPI_Testall(n, requests, flag, statuses);
    }
    int MPI_Testany(int n, MPI_Request requests[], int* index, int* flag, MPI_Status* status)
    {
        count(test);
        return PMPI_Testany(n, requests, index, flag, status);
    }
    int MPI_Testsome(int n, MPI_Request requests[], int* out, int* indices, MPI_Status statuses[])
    {
        count(test);
        return PMPI_Testsome(n, requests, out, indices, statuses);
    }
    int MPI_Wait(MPI_Request* request, MPI_Status* status)
    {
        count(wait);
        return PMPI_Wait(request, status);
    }
    int MPI_Waitall(int n, MPI_Request requests[], MPI_Status statuses[])
    {
        count(wait);
        return PMPI_Waitall(n, requests, statuses);
    }
    int MPI_Waitany(int n, MPI_Request requests[], int* index, MPI_Status* status)
    {
        count(wait);
        return PMPI_Waitany(n, requests, index, status);
    }
    int MPI_Waitsome(int n, MPI_Request requests[], int* out, int* indices, MPI_Status statuses[])
    {
        count(wait);
        return PMPI_Waitsome(n, requests, out, indices, statuses);
    }
    int MPI_Iprobe(int from, int tag, MPI_Comm comm, int* flag, MPI_Status* status)
    {
        count(probe);
        return PMPI_Iprobe(from, tag, comm, flag, status);
    }
    int MPI_Probe(int from, int tag, MPI_Comm comm, MPI_Status* status)
    {
        count(probe);
        return PMPI_Probe(from, tag, comm, status);
    }
    int MPI_Get_count(const MPI_Status* status, MPI_Datatype type, int* n)
    {
        count(other);
        return PMPI_Get_count(status, type, n);
    }
    int MPI_Request_get_status(MPI_Request request, int* flag, MPI_Status* status)
    {
        count(other);
        return PMPI_Request_get_status(request, flag, status);
    }
    int
    MPI_Recv(void* data, int n, MPI_Datatype type, int from, int tag, MPI_Comm comm, MPI_Status* s)
    {
        count(other);
        return PMPI_Recv(data, n, type, from, tag, comm, s);
    }
    int MPI_Send(const void* data, int n, MPI_Datatype type, int to, int tag, MPI_Comm comm)
    {
        count(other);
        return PMPI_Send(data, n, type, to, tag, comm);
    }
    int MPI_Cancel(MPI_Request* request)
    {
        count(other);
        return PMPI_Cancel(request);
    }
}

using fieldsync::halo::Communicator;
using fieldsync::test::Shape;
namespace mpi = fieldsync::mpi;

namespace
{
using Field = Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace>;
constexpr int components { 2 }; // 20 to 32 ghosts of 2 doubles: 320 B to 512 B per neighbour

/** The ranks other than @p me this rank sends to or receives from, and its receives. */
struct Peers
{
    std::size_t pairs { 0 };
    std::size_t receives { 0 };
};

Peers peersOf(const fieldsync::test::Setup& setup, int me, int n)
{
    Peers peers;
    for (int r = 0; r < n; ++r)
    {
        const bool receives = r != me && setup.receive.sizeOf(r) > 0;
        const bool sends = r != me && setup.send.sizeOf(r) > 0;
        peers.pairs += receives || sends ? 1 : 0;
        peers.receives += receives ? 1 : 0;
    }
    return peers;
}

/** Owned cells hold the truth of step @p step; ghosts a value no exchange sends. */
void fill(Field& field, const fieldsync::test::Setup& setup, int step)
{
    for (int i = 0; i < setup.nLocal; ++i)
    {
        for (int c = 0; c < components; ++c)
        {
            field(i, c) = i < setup.nOwned
                              ? fieldsync::test::truth(setup.globalId[std::size_t(i)], c, step)
                              : -1.0;
        }
    }
}

/** The largest of @p value over the ranks (so that every rank asserts the same). */
double maxOverRanks(double value)
{
    double largest { 0.0 };
    MPI_Allreduce(&value, &largest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return largest;
}

/** The calls but the tests counted so far. */
std::uint64_t untimed() noexcept
{
    return counts[start] + counts[wait] + counts[probe] + counts[other];
}

/** Whether every ghost holds the truth of its global id at step @p step. */
bool ghostsRight(const Field& field, const fieldsync::test::Setup& setup, int step)
{
    for (int i = setup.nOwned; i < setup.nLocal; ++i)
    {
        for (int c = 0; c < components; ++c)
        {
            if (field(i, c) != fieldsync::test::truth(setup.globalId[std::size_t(i)], c, step))
            {
                return false;
            }
        }
    }
    return true;
}
} // namespace

TEST_CASE("A settled exchange makes at most 4 MPI calls per neighbour pair")
{
    const mpi::MPIEnvironment env;
    const int me = env.rank();
    const int n = env.sizeRank();
    for (const Shape shape : { Shape::Ring, Shape::AllToAll })
    {
        // reissued requests (small messages, the default) and persistent ones
        for (const bool persistent : { false, true })
        {
            CAPTURE(static_cast<int>(shape), persistent);
            const auto setup = fieldsync::test::makeSetup(me, n, shape, 23, 32, false);
            const Peers peers = peersOf(setup, me, n);
            Communicator comm(env, setup.send, setup.receive);
            comm.setOptions({ .persistentFrom =
                                  persistent ? 0
                                             : fieldsync::halo::ExchangeOptions::neverPersistent });
            Field field("field", static_cast<std::size_t>(setup.nLocal), components);
            const fieldsync::CommKey key { "calls::settled" };
            // every settled exchange makes the same calls (the counts come out whole), so 50
            // show an excess as surely as 200 did; each costs two barriers, 8 ms apiece on 3
            // ranks on 2 cores under MPICH (200 took 14 s there)
            constexpr int warmUp { 10 };
            constexpr int exchanges { 50 };
            bool right { true };
            counts = {};
            std::uint64_t worstUntimed { 0 }; // the most calls but tests of one exchange
            for (int step = 0; step < warmUp + exchanges; ++step)
            {
                fill(field, setup, step);
                const std::uint64_t before = untimed();
                counting = step >= warmUp;
                comm.startComm(field, key);
                counting = false;
                // twice: after the first every peer's sends are posted and its messages are
                // here, after the second every sender has heard so (a send completes on that)
                MPI_Barrier(MPI_COMM_WORLD);
                MPI_Barrier(MPI_COMM_WORLD);
                counting = step >= warmUp;
                comm.finaliseComm(field, key);
                counting = false;
                right = right && ghostsRight(field, setup, step);
                worstUntimed = std::max(worstUntimed, untimed() - before);
            }
            std::uint64_t all { 0 };
            for (const std::uint64_t c : counts)
            {
                all += c;
            }
            const double pairs = static_cast<double>(std::max<std::size_t>(peers.pairs, 1));
            const double perPair = static_cast<double>(all) / (exchanges * pairs);
            CAPTURE(counts[start], counts[test], counts[wait], counts[probe], counts[other]);
            if (me == 0)
            {
                std::printf(
                    "settled, shape %d, persistent %d, %zu pairs: per exchange %.2f starts, %.2f "
                    "tests, %.2f waits, %.2f probes, %.2f other; %.2f calls per pair\n",
                    static_cast<int>(shape),
                    persistent ? 1 : 0,
                    peers.pairs,
                    static_cast<double>(counts[start]) / exchanges,
                    static_cast<double>(counts[test]) / exchanges,
                    static_cast<double>(counts[wait]) / exchanges,
                    static_cast<double>(counts[probe]) / exchanges,
                    static_cast<double>(counts[other]) / exchanges,
                    perPair
                );
            }
            REQUIRE(maxOverRanks(right ? 0.0 : 1.0) == 0.0);
            // per neighbour: its send and receive started, its receive's size checked (the
            // persistent form starts each direction's requests in one call)
            REQUIRE(maxOverRanks(static_cast<double>(worstUntimed) - 3.0 * pairs) <= 0.0);
            REQUIRE(maxOverRanks(static_cast<double>(counts[probe])) == 0.0);
            REQUIRE(maxOverRanks(perPair) <= 4.0);
        }
    }
}

TEST_CASE("Back-to-back exchanges listen for notices at most once a millisecond of waiting")
{
    const mpi::MPIEnvironment env;
    const int me = env.rank();
    const int n = env.sizeRank();
    const auto setup = fieldsync::test::makeSetup(me, n, Shape::Ring, 29, 32, true);
    const Peers peers = peersOf(setup, me, n);
    const double pairs = static_cast<double>(std::max<std::size_t>(peers.pairs, 1));
    Communicator comm(env, setup.send, setup.receive);
    Field field("field", static_cast<std::size_t>(setup.nLocal), components);
    const fieldsync::CommKey key { "calls::backToBack" };
    constexpr int warmUp { 10 };
    constexpr int exchanges { 300 };
    bool right { true };
    std::uint64_t worstUntimed { 0 }; // the most calls but tests and probes of one exchange
    std::uint64_t probesAllowed { 0 };
    counts = {};
    for (int step = 0; step < warmUp + exchanges; ++step)
    {
        fill(field, setup, step);
        const std::uint64_t before = untimed() - counts[probe];
        counting = step >= warmUp;
        comm.startComm(field, key);
        const auto waitStart = std::chrono::steady_clock::now();
        comm.finaliseComm(field, key);
        const std::chrono::duration<double, std::milli> waited =
            std::chrono::steady_clock::now() - waitStart;
        counting = false;
        right = right && ghostsRight(field, setup, step);
        worstUntimed = std::max(worstUntimed, untimed() - counts[probe] - before);
        probesAllowed += step >= warmUp ? 1 + static_cast<std::uint64_t>(waited.count()) : 0;
    }
    CAPTURE(counts[test], counts[probe], probesAllowed);
    const double tests = maxOverRanks(static_cast<double>(counts[test]) / exchanges);
    const double probes = maxOverRanks(static_cast<double>(counts[probe]) / exchanges);
    if (me == 0)
    {
        std::printf(
            "back to back, %zu pairs: per exchange at most %.2f tests, %.2f probes on a rank\n",
            peers.pairs,
            tests,
            probes
        );
    }
    REQUIRE(maxOverRanks(right ? 0.0 : 1.0) == 0.0);
    REQUIRE(maxOverRanks(static_cast<double>(worstUntimed) - 3.0 * pairs) <= 0.0);
    const double probesOver =
        static_cast<double>(counts[probe]) - static_cast<double>(probesAllowed);
    REQUIRE(maxOverRanks(probesOver) <= 0.0);
}
