// SPDX-License-Identifier: MIT
// The bad-input battery (run with FIELDSYNC_CHECK=1 on 2 and 3 ranks): every public entry point
// (collectives, Request, buffers, topologies, reordering, hierarchies, the halo Communicator,
// the partition layer) taken through bad input. Each case expects a fieldsync::Error whose text
// names the problem, this file (the caller's line) and the raising rank, on every rank that
// the case involves. doc/reliability.md lists the cases and their outcomes.
#include "fieldsync_test/catch.hpp"
#include "fieldsync_test/errorText.hpp"
#include "fieldsync_test/scopedWaitTimeout.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/core/settings.hpp"
#include "fieldsync/halo/communicator.hpp"
#include "fieldsync/halo/fullDuplexCommBuffer.hpp"
#include "fieldsync/mpi/cartesianTopology.hpp"
#include "fieldsync/mpi/collectives.hpp"
#include "fieldsync/mpi/communicatorHierarchy.hpp"
#include "fieldsync/mpi/graphTopology.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"
#include "fieldsync/mpi/reordering.hpp"
#include "fieldsync/partition/cellGraph.hpp"
#include "fieldsync/partition/haloBuilder.hpp"
#include "fieldsync/partition/ownerDirectory.hpp"
#include "fieldsync/partition/partition.hpp"

#include <Kokkos_Core.hpp>

#include <complex>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace fm = fieldsync::mpi;
namespace fh = fieldsync::halo;
namespace fp = fieldsync::partition;

namespace
{

/** @brief Which ranks must raise in a case. */
enum class Who
{
    Every, /**< every rank of the communicator */
    Some   /**< the ranks that pass @p raises = true (the others must not raise) */
};

/**
 * @brief Runs @p call on every rank of @p comm. The ranks that must raise (all, or those with
 * @p raises) must get a fieldsync::Error whose what() names this rank ("rank R:"), this file
 * (the caller's line) and each of @p parts; the others must return normally. Checked on every
 * rank, and the outcome of every rank is compared, so a rank that raised alone is caught too.
 */
void expectError(
    MPI_Comm comm,
    const std::function<void()>& call,
    std::initializer_list<std::string> parts,
    Who who = Who::Every,
    bool raises = true
)
{
    const bool mustRaise { who == Who::Every || raises };
    const auto what = fieldsync::test::errorText(call);
    INFO((what ? *what : std::string("no Error")));
    CHECK(what.has_value() == mustRaise);
    if (what)
    {
        int world { 0 };
        MPI_Comm_rank(MPI_COMM_WORLD, &world);
        CHECK(what->find("rank " + std::to_string(world) + ":") != std::string::npos);
        CHECK(what->find("badInput.cpp:") != std::string::npos);
        for (const std::string& part : parts)
        {
            CHECK(what->find(part) != std::string::npos);
        }
    }
    // every rank agrees on the outcome: the ranks that had to raise did
    const int ok { what.has_value() == mustRaise ? 1 : 0 };
    int all { 0 };
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
    CHECK(all == 1);
}

std::vector<double> values(std::size_t n, double value = 1.0)
{
    return std::vector<double>(n, value);
}

/** @brief A ring: cell 0 goes to the next rank's ghost cell 1 (2 cells a rank). */
struct Ring
{
    fh::RankSimplexCommMap send;    /**< cell 0 to the next rank */
    fh::RankSimplexCommMap receive; /**< ghost 1 from the previous rank */
};

Ring ring(const fm::MPIEnvironment& env)
{
    const int P { env.sizeRank() };
    const int next { (env.rank() + 1) % P };
    const int previous { (env.rank() + P - 1) % P };
    return Ring { fh::RankSimplexCommMap(P, { next }, { 0, 1 }, { 0 }),
                  fh::RankSimplexCommMap(P, { previous }, { 0, 1 }, { 1 }) };
}

/**
 * @brief A star: rank 0 sends its cell 0 to every other rank (their ghost cell 1) and receives
 * every other rank's cell 0 into its ghosts 1 .. P-1, so every rank exchanges with rank 0 only.
 */
Ring star(const fm::MPIEnvironment& env)
{
    const int P { env.sizeRank() };
    if (env.rank() != 0)
    {
        return Ring { fh::RankSimplexCommMap(P, { 0 }, { 0, 1 }, { 0 }),
                      fh::RankSimplexCommMap(P, { 0 }, { 0, 1 }, { 1 }) };
    }
    std::vector<int> others;
    std::vector<std::size_t> offsets { 0 };
    std::vector<fieldsync::LocalIndex> zeros;
    std::vector<fieldsync::LocalIndex> ghosts;
    for (int r = 1; r < P; ++r)
    {
        others.push_back(r);
        offsets.push_back(static_cast<std::size_t>(r));
        zeros.push_back(0);
        ghosts.push_back(r);
    }
    return Ring { fh::RankSimplexCommMap(P, others, offsets, zeros),
                  fh::RankSimplexCommMap(P, others, offsets, ghosts) };
}
} // namespace

TEST_CASE("battery: runs in check mode on 2 or more ranks", "[badInput]")
{
    REQUIRE(fieldsync::checkMode());
    REQUIRE(fm::MPIEnvironment().sizeRank() >= 2);
}

TEST_CASE("battery: collectives, local mistakes", "[badInput]")
{
    const fm::MPIEnvironment env { fm::MPIEnvironment().duplicate() };
    const MPI_Comm comm { env.comm() };
    const int P { env.sizeRank() };
    const auto sum = fm::ReduceOp::Sum;
    auto four = values(4);

    SECTION("C1 allReduce: receive buffer too small")
    {
        auto small = values(2);
        expectError(
            comm, [&] { fm::allReduce(four, small, sum, comm); }, { "receive buffer too small" }
        );
    }
    SECTION("C2 broadcast: root beyond the ranks")
    {
        expectError(
            comm,
            [&] { fm::broadcast(four, P + 3, comm); },
            { "root " + std::to_string(P + 3) + " is out of range" }
        );
    }
    SECTION("C3 reduce: negative root")
    {
        expectError(comm, [&] { fm::reduce(four, sum, -1, comm); }, { "root -1 is out of range" });
    }
    SECTION("C4 allReduce on MPI_COMM_NULL")
    {
        expectError(
            comm,
            [&] { fm::allReduce(four, sum, MPI_COMM_NULL); },
            { "the communicator is MPI_COMM_NULL" }
        );
    }
    SECTION("C5 allReduce: Min on complex values")
    {
        std::vector<std::complex<double>> z(2);
        expectError(
            comm,
            [&] { fm::allReduce(z, fm::ReduceOp::Min, comm); },
            { "ReduceOp Min is not defined", "complex" }
        );
    }
    SECTION("C6 allReduce: a logical op on doubles")
    {
        expectError(
            comm, [&] { fm::allReduce(four, fm::ReduceOp::LAnd, comm); }, { "is not defined on" }
        );
    }
    SECTION("C7 allGatherV: recvCounts of the wrong length")
    {
        std::vector<int> counts(static_cast<std::size_t>(P + 1), 1);
        auto recv = values(static_cast<std::size_t>(P + 1));
        auto one = values(1);
        expectError(
            comm,
            [&] { fm::allGatherV(one, recv, counts, comm); },
            { "recvCounts has " + std::to_string(P + 1) + " entries, expected one per rank" }
        );
    }
    SECTION("C8 allGatherV: a negative count")
    {
        std::vector<int> counts(static_cast<std::size_t>(P), 1);
        counts.back() = -2;
        auto recv = values(static_cast<std::size_t>(P));
        auto one = values(1);
        expectError(comm, [&] { fm::allGatherV(one, recv, counts, comm); }, { "is negative (-2)" });
    }
    SECTION("C9 allToAll: send size not a multiple of the ranks")
    {
        auto send = values(static_cast<std::size_t>(P + 1));
        auto recv = values(static_cast<std::size_t>(P + 1));
        expectError(comm, [&] { fm::allToAll(send, recv, comm); }, { "not a multiple of the" });
    }
    SECTION("C10 allGatherV: send size disagrees with this rank's count")
    {
        std::vector<int> counts(static_cast<std::size_t>(P), 1);
        auto recv = values(static_cast<std::size_t>(P));
        auto two = values(2);
        expectError(
            comm, [&] { fm::allGatherV(two, recv, counts, comm); }, { "send buffer holds 2" }
        );
    }
    SECTION("C11 allReduce: a non-contiguous view")
    {
        Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace> matrix("matrix", 3, 4);
        auto column = Kokkos::subview(matrix, Kokkos::ALL, 1);
        expectError(comm, [&] { fm::allReduce(column, sum, comm); }, { "not contiguous" });
    }
    SECTION("C12 gatherV: the root's recvCounts too short (one rank's mistake, check mode)")
    {
        std::vector<int> counts(static_cast<std::size_t>(env.rank() == 0 ? 1 : P), 1);
        auto recv = values(static_cast<std::size_t>(P));
        auto one = values(1);
        expectError(
            comm,
            [&] { fm::gatherV(one, recv, counts, 0, comm); },
            { env.rank() == 0 ? "recvCounts has 1 entries" : "rank 0 failed its own checks" }
        );
    }
    SECTION("C13 iAllReduce: receive buffer too small, at the post")
    {
        auto small = values(1);
        expectError(
            comm,
            [&] { fm::Request r = fm::iAllReduce(four, small, sum, comm); },
            { "receive buffer too small" }
        );
    }
    SECTION("C14 scatter: receive count times ranks beyond the root's send buffer")
    {
        auto send = values(static_cast<std::size_t>(P));
        auto recv = values(2);
        expectError(
            comm,
            [&] { fm::scatter(send, recv, 0, comm); },
            { env.rank() == 0 ? "too small" : "rank 0 failed its own checks" }
        );
    }
}

TEST_CASE("battery: collectives, ranks that disagree (check mode)", "[badInput]")
{
    const fm::MPIEnvironment env { fm::MPIEnvironment().duplicate() };
    const MPI_Comm comm { env.comm() };
    const int P { env.sizeRank() };
    const bool one { env.rank() == 1 };
    const auto sum = fm::ReduceOp::Sum;

    SECTION("D1 allReduce: different counts")
    {
        auto data = values(one ? 3U : 4U);
        expectError(
            comm,
            [&] { fm::allReduce(data, sum, comm); },
            { "different counts", "rank 1 passed 3", "rank 0 passed 4" }
        );
    }
    SECTION("D2 broadcast: different roots")
    {
        auto data = values(2);
        expectError(
            comm, [&] { fm::broadcast(data, one ? 1 : 0, comm); }, { "different roots", "rank 1" }
        );
    }
    SECTION("D3 allReduce: different element types")
    {
        std::vector<double> d(2, 1.0);
        std::vector<float> f(2, 1.0F);
        expectError(
            comm,
            [&]
            {
                if (one)
                {
                    fm::allReduce(f, sum, comm);
                }
                else
                {
                    fm::allReduce(d, sum, comm);
                }
            },
            { "different element types", "rank 1" }
        );
    }
    SECTION("D4 allReduce: different ops")
    {
        auto data = values(2);
        expectError(
            comm,
            [&] { fm::allReduce(data, one ? fm::ReduceOp::Max : sum, comm); },
            { "different ReduceOps", "rank 1" }
        );
    }
    SECTION("D5 different operations: allReduce against broadcast")
    {
        auto data = values(2);
        expectError(
            comm,
            [&]
            {
                if (one)
                {
                    fm::broadcast(data, 0, comm);
                }
                else
                {
                    fm::allReduce(data, sum, comm);
                }
            },
            { "different operations", "rank 1" }
        );
    }
    SECTION("D6 blocking against non-blocking forms")
    {
        auto data = values(2);
        expectError(
            comm,
            [&]
            {
                if (one)
                {
                    fm::iAllReduce(data, sum, comm).wait();
                }
                else
                {
                    fm::allReduce(data, sum, comm);
                }
            },
            { "blocking and non-blocking", "rank 1" }
        );
    }
    SECTION("D7 gatherV: rank 1 sends more than the root's recvCounts")
    {
        // counts on the root only: off the root nothing local can see the mistake
        std::vector<int> counts(env.rank() == 0 ? static_cast<std::size_t>(P) : 0U, 1);
        auto send = values(one ? 2U : 1U);
        auto recv = values(static_cast<std::size_t>(P));
        expectError(
            comm,
            [&] { fm::gatherV(send, recv, counts, 0, comm); },
            { "rank 1 sends 2 values but the root (rank 0) has recvCounts[1] = 1" }
        );
    }
    SECTION("D7b gatherV: counts given off the root disagree with the send size")
    {
        std::vector<int> counts(static_cast<std::size_t>(P), 1);
        auto send = values(one ? 2U : 1U);
        auto recv = values(static_cast<std::size_t>(P));
        expectError(
            comm,
            [&] { fm::gatherV(send, recv, counts, 0, comm); },
            { one ? "send buffer holds 2 values but recvCounts[rank 1] is 1"
                  : "rank 1 failed its own checks" }
        );
    }
    SECTION("D8 broadcast: the root sends fewer values than the others expect")
    {
        auto data = values(env.rank() == 0 ? 2U : 3U);
        expectError(comm, [&] { fm::broadcast(data, 0, comm); }, { "different counts" });
    }
    SECTION("D9 allToAllV: counts that do not pair up")
    {
        std::vector<int> sendCounts(static_cast<std::size_t>(P), 1);
        std::vector<int> recvCounts(static_cast<std::size_t>(P), 1);
        if (env.rank() == 0)
        {
            sendCounts[1] = 2;
        }
        auto send = values(static_cast<std::size_t>(P + 1));
        auto recv = values(static_cast<std::size_t>(P + 1));
        expectError(
            comm,
            [&] { fm::allToAllV(send, sendCounts, recv, recvCounts, comm); },
            { "rank 0 sends 2 values to rank 1, whose recvCounts[0] is 1" }
        );
    }
    SECTION("D10 a rank that never calls: the others name it within the time-out")
    {
        auto data = values(2);
        const int absent { P - 1 };
        if (env.rank() != absent)
        {
            const fieldsync::test::ScopedWaitTimeout timeout("0.5", "error");
            const auto what = fieldsync::test::errorText([&] { fm::allReduce(data, sum, comm); });
            REQUIRE(what.has_value());
            INFO(*what);
            CHECK(what->find("badInput.cpp:") != std::string::npos);
            CHECK(
                what->find(
                    "rank " + std::to_string(absent) + " (of " + std::to_string(P) +
                    ") has not arrived"
                ) != std::string::npos
            );
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (env.rank() == absent) // late, with its own mistake: completes the others' agreement
        {
            auto small = values(1);
            auto two = values(2);
            CHECK(fieldsync::test::errorText([&] { fm::allReduce(two, small, sum, comm); }
            ).has_value());
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
}

TEST_CASE("battery: Request", "[badInput]")
{
    const fm::MPIEnvironment env { fm::MPIEnvironment().duplicate() };
    const MPI_Comm comm { env.comm() };
    auto data = values(2);

    SECTION("R1 a Request destroyed unfinished: the next collective raises it (check mode)")
    {
        {
            const fm::Request dropped = fm::iAllReduce(data, fm::ReduceOp::Sum, comm);
        }
        expectError(
            comm,
            [&] { fm::allReduce(data, fm::ReduceOp::Sum, comm); },
            { "destroyed before it completed", "iAllReduce" }
        );
        fm::barrier(comm); // the next call is clean again
    }
    SECTION("R2 iBroadcast that only rank 0 posts: its post names the absent ranks")
    {
        const fm::MPIEnvironment late { env.duplicate() };
        const int P { env.sizeRank() };
        {
            const fieldsync::test::ScopedWaitTimeout timeout("0.5", "error");
            expectError(
                comm,
                [&]
                {
                    if (env.rank() == 0)
                    {
                        fm::Request request = fm::iBroadcast(data, 0, late.comm());
                    }
                },
                { P == 2 ? "rank 1 (of 2) has not arrived" : "ranks 1, 2 (of 3) have not arrived" },
                Who::Some,
                env.rank() == 0
            );
        }
        // the others come late, each with a root out of range: their agreement completes
        // rank 0's, and they raise their own Error without starting the broadcast
        expectError(
            comm,
            [&]
            {
                if (env.rank() != 0)
                {
                    fm::Request request = fm::iBroadcast(data, 9, late.comm());
                }
            },
            { "root 9 is out of range" },
            Who::Some,
            env.rank() != 0
        );
    }
}

TEST_CASE("battery: communication buffers", "[badInput]")
{
    const fm::MPIEnvironment env;
    const int P { env.sizeRank() };
    const int me { env.rank() };
    std::vector<std::size_t> sizes(static_cast<std::size_t>(P), 2);
    fh::FullDuplexCommBuffer<Kokkos::HostSpace> buffer(env, sizes, sizes);
    const MPI_Comm comm { env.comm() };

    SECTION("B1 getSendBuffer before initComm")
    {
        expectError(
            comm, [&] { static_cast<void>(buffer.getSendBuffer<double>(me)); }, { "not claimed" }
        );
    }
    SECTION("B2 initComm twice")
    {
        buffer.initComm<double>("twice");
        expectError(comm, [&] { buffer.initComm<double>("twice"); }, { "already claimed" });
    }
    SECTION("B3 getSendBuffer with another element type")
    {
        buffer.initComm<double>("typed");
        expectError(
            comm,
            [&] { static_cast<void>(buffer.getSendBuffer<float>(me)); },
            { "claimed with element type" }
        );
    }
    SECTION("B4 getSendBuffer: rank out of range")
    {
        buffer.initComm<double>("ranged");
        expectError(
            comm,
            [&] { static_cast<void>(buffer.getSendBuffer<double>(P)); },
            { "rank " + std::to_string(P) + " is out of range" }
        );
    }
    SECTION("B5 waitComplete before startComm")
    {
        buffer.initComm<double>("early");
        expectError(comm, [&] { buffer.waitComplete(); }, { "before startComm" });
    }
    SECTION("B6 getReceiveBuffer before the communication completed")
    {
        buffer.initComm<double>("unfinished");
        expectError(
            comm,
            [&] { static_cast<void>(buffer.getReceiveBuffer<double>(me)); },
            { "before the communication completed" }
        );
    }
}

TEST_CASE("battery: topologies, reordering, hierarchies", "[badInput]")
{
    const fm::MPIEnvironment env;
    const MPI_Comm comm { env.comm() };
    const int P { env.sizeRank() };

    SECTION("T1 CartesianTopology: empty dims")
    {
        expectError(comm, [&] { fm::CartesianTopology t(env, {}); }, { "dims is empty" });
    }
    SECTION("T2 CartesianTopology: a negative dimension")
    {
        expectError(
            comm,
            [&] {
                fm::CartesianTopology t(env, { -1, 0 });
            },
            { "negative dimension -1" }
        );
    }
    SECTION("T3 CartesianTopology: dims that do not fit the ranks")
    {
        expectError(
            comm,
            [&] { fm::CartesianTopology t(env, { P + 1 }); },
            { "do not fit " + std::to_string(P) + " ranks" }
        );
    }
    SECTION("T4 CartesianTopology: periodic flags of another length")
    {
        expectError(
            comm,
            [&] {
                fm::CartesianTopology t(env, { P }, { true, false });
            },
            { "2 periodic flags for 1 dimensions" }
        );
    }
    SECTION("T5 CartesianTopology::coords: rank out of range")
    {
        const fm::CartesianTopology t(env, { P });
        expectError(
            comm,
            [&] { static_cast<void>(t.coords(P)); },
            { "rank " + std::to_string(P) + " out of range" }
        );
    }
    SECTION("T6 CartesianTopology::shift: dimension out of range")
    {
        const fm::CartesianTopology t(env, { P });
        expectError(
            comm, [&] { static_cast<void>(t.shift(1, 1)); }, { "dimension 1 out of range" }
        );
    }
    SECTION("T7 GraphTopology: weights of another length")
    {
        expectError(
            comm,
            [&] {
                fm::GraphTopology g(env, { 0 }, { 1, 1 }, { 0 }, { 1 });
            },
            { "2 weights for 1" }
        );
    }
    SECTION("T8 GraphTopology: a negative weight")
    {
        expectError(
            comm,
            [&] { fm::GraphTopology g(env, { 0 }, { -3 }, { 0 }, { 1 }); },
            { "negative weight -3" }
        );
    }
    SECTION("T9 GraphTopology: a rank out of range")
    {
        expectError(
            comm,
            [&] { fm::GraphTopology g(env, { P }, { 1 }, { 0 }, { 1 }); },
            { "is rank " + std::to_string(P) + ", out of range" }
        );
    }
    SECTION("T10 reorder: a mapping that is not a permutation")
    {
        expectError(
            comm,
            [&] { static_cast<void>(fm::reorder(env, [](int) { return 0; })); },
            { "not a permutation" }
        );
    }
    SECTION("T11 reorder: a vector of the wrong length")
    {
        const std::vector<int> newRankOf(static_cast<std::size_t>(P + 1), 0);
        expectError(comm, [&] { static_cast<void>(fm::reorder(env, newRankOf)); }, { "reorder" });
    }
    SECTION("T12 CommunicatorHierarchy: popping the last level")
    {
        fm::CommunicatorHierarchy h(env);
        expectError(comm, [&] { h.popCommunicator(); }, { "cannot be popped" });
    }
    SECTION("T13 CommunicatorHierarchy: a level out of range")
    {
        fm::CommunicatorHierarchy h(env);
        expectError(comm, [&] { h.setCommunicator(5); }, { "level 5 is out of range" });
    }
}

TEST_CASE("battery: halo Communicator", "[badInput]")
{
    const fm::MPIEnvironment env;
    const MPI_Comm comm { env.comm() };
    const int P { env.sizeRank() };
    const int me { env.rank() };
    Ring r = ring(env);

    SECTION("H1 map: neighbour rank out of range")
    {
        fh::RankSimplexCommMap map(P);
        expectError(
            comm,
            [&] { map.setRank(P, { 0 }); },
            { "neighbour rank " + std::to_string(P) + " is out of range" }
        );
    }
    SECTION("H2 map: a negative cell index")
    {
        fh::RankSimplexCommMap map(P);
        expectError(
            comm,
            [&] {
                map.setRank(0, { 3, -2 });
            },
            { "entry 1 has the negative cell index -2" }
        );
    }
    SECTION("H3 map: offsets that do not start at 0")
    {
        expectError(
            comm,
            [&] {
                fh::RankSimplexCommMap map(P, { 0 }, { 1, 2 }, { 0, 1 });
            },
            { "offsets must run from 0" }
        );
    }
    SECTION("H4 Communicator: a send map for another communicator size")
    {
        const fh::RankSimplexCommMap bigger(P + 1);
        expectError(
            comm,
            [&] { fh::Communicator c(env, bigger, r.receive); },
            { "the send map is for " + std::to_string(P + 1) + " ranks" }
        );
    }
    SECTION("H5 Communicator: a receive map that writes a cell twice")
    {
        const int previous { (me + P - 1) % P };
        const fh::RankSimplexCommMap twice(P, { previous }, { 0, 2 }, { 1, 1 });
        const fh::RankSimplexCommMap send(P, { (me + 1) % P }, { 0, 2 }, { 0, 0 });
        expectError(comm, [&] { fh::Communicator c(env, send, twice); }, { "is written twice" });
    }
    SECTION("H6 startComm on a default-constructed Communicator")
    {
        fh::Communicator empty;
        Kokkos::View<double*, Kokkos::HostSpace> field("field", 2);
        expectError(comm, [&] { empty.startComm(field); }, { "default-constructed" });
    }
    SECTION("H7 startComm before commit, commit twice")
    {
        fh::Communicator declared = fh::Communicator::declare(env, r.send, r.receive);
        Kokkos::View<double*, Kokkos::HostSpace> field("field", 2);
        expectError(comm, [&] { declared.startComm(field); }, { "not committed" });
        declared.commit();
        expectError(comm, [&] { declared.commit(); }, { "already committed" });
    }
    SECTION("H8 startComm: a field smaller than the maps")
    {
        fh::Communicator c(env, r.send, r.receive);
        Kokkos::View<double*, Kokkos::HostSpace> tiny("tiny", 1);
        expectError(comm, [&] { c.startComm(tiny); }, { "beyond the field of 1 cells" });
    }
    SECTION("H9 startComm: the same key twice in flight")
    {
        fh::Communicator c(env, r.send, r.receive);
        Kokkos::View<double*, Kokkos::HostSpace> a("a", 2);
        Kokkos::View<double*, Kokkos::HostSpace> b("b", 2);
        c.startComm(a, "twice");
        expectError(comm, [&] { c.startComm(b, "twice"); }, { "'twice' is already in flight" });
        c.finaliseComm(a, "twice");
    }
    SECTION("H10 finaliseComm: a field with no exchange")
    {
        fh::Communicator c(env, r.send, r.receive);
        Kokkos::View<double*, Kokkos::HostSpace> a("a", 2);
        expectError(comm, [&] { c.finaliseComm(a); }, { "no exchange of this field" });
    }
    SECTION("H11 finaliseComm: another field under the started key")
    {
        fh::Communicator c(env, r.send, r.receive);
        Kokkos::View<double*, Kokkos::HostSpace> a("a", 2);
        Kokkos::View<double*, Kokkos::HostSpace> b("b", 2);
        c.startComm(a, "running");
        expectError(
            comm, [&] { c.finaliseComm(b, "running"); }, { "not the field that was started" }
        );
        c.finaliseComm(a, "running");
    }
    SECTION("H12 finaliseComm: a view of another type over the same memory")
    {
        fh::Communicator c(env, r.send, r.receive);
        Kokkos::View<double*, Kokkos::HostSpace> a("a", 2);
        Kokkos::View<float*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> alias(
            reinterpret_cast<float*>(a.data()), 4
        );
        c.startComm(a, "typed");
        expectError(
            comm, [&] { c.finaliseComm(alias, "typed"); }, { "not the field that was started" }
        );
        c.finaliseComm(a, "typed");
    }
    SECTION("H13 commit: counts that differ between neighbours (every rank)")
    {
        // rank 0 expects two cells from its previous rank, which sends one
        fh::RankSimplexCommMap receive(P);
        const int previous { (me + P - 1) % P };
        receive.setRank(
            previous,
            me == 0 ? std::vector<fieldsync::LocalIndex> { 1, 2 }
                    : std::vector<fieldsync::LocalIndex> { 1 }
        );
        expectError(comm, [&] { fh::Communicator c(env, r.send, receive); }, { "rank" });
    }
    SECTION("H15 a Communicator destroyed mid-exchange: the next collective raises it")
    {
        // the field outlives the Communicator: an in-place receive writes into it until the
        // Communicator's destructor has cancelled and completed it (see doc/reliability.md)
        Kokkos::View<double*, Kokkos::HostSpace> a("a", 2);
        {
            fh::Communicator c(env, r.send, r.receive);
            c.startComm(a, "dropped");
        }
        double value { 1.0 };
        expectError(
            comm,
            [&] { fm::allReduce(value, fm::ReduceOp::Sum, comm); },
            { "exchange 'dropped'", "still in flight" }
        );
    }
    SECTION("H16 rank 0 throws in startComm, the others only poll isComplete")
    {
        const Ring s = star(env);
        fh::Communicator c(env, s.send, s.receive);
        Kokkos::View<double*, Kokkos::HostSpace> field("field", me == 0 ? P : 2);
        Kokkos::View<double*, Kokkos::HostSpace> tiny("tiny", 1);
        expectError(
            comm,
            [&]
            {
                c.startComm(me == 0 ? tiny : field, "polled");
                // bounded, so that a missing notice fails the case instead of hanging
                for (long poll = 0; poll < 100000000L && !c.isComplete(field); ++poll)
                {
                }
            },
            { "beyond the field of 1 cells" }
        );
    }
    SECTION("H17 a key started again on the Communicator where its start failed")
    {
        const Ring s = star(env);
        fh::Communicator c(env, s.send, s.receive);
        Kokkos::View<double*, Kokkos::HostSpace> field("field", me == 0 ? P : 2);
        Kokkos::View<double*, Kokkos::HostSpace> tiny("tiny", 1);
        const auto failed = fieldsync::test::errorText(
            [&]
            {
                c.startComm(me == 0 ? tiny : field, "again");
                c.finaliseComm(field, "again");
            }
        );
        CHECK(failed.has_value());
        expectError(
            comm,
            [&]
            {
                c.startComm(field, "again");
                c.finaliseComm(field, "again");
            },
            { "exchange 'again' cannot start again on this Communicator", "new Communicator" }
        );
    }
    SECTION("H14 commit: send and receive maps swapped")
    {
        expectError(
            comm,
            [&]
            { fh::Communicator c(env, r.receive, r.send, fh::CommitOptions { .ownedCells = 1 }); },
            { "swapped order" }
        );
    }
}

TEST_CASE("battery: partition layer", "[badInput]")
{
    const fm::MPIEnvironment env;
    const MPI_Comm comm { env.comm() };
    const int P { env.sizeRank() };
    const int me { env.rank() };
    using Ids = std::vector<fp::GlobalIndex>;

    SECTION("P1 CellGraph: a negative global id")
    {
        expectError(
            comm,
            [&] {
                fp::CellGraph g(Ids { -4 }, { 0, 0 }, Ids {});
            },
            { "negative global id" }
        );
    }
    SECTION("P2 CellGraph: a cell that lists itself")
    {
        expectError(
            comm,
            [&] {
                fp::CellGraph g(Ids { 3 }, { 0, 1 }, Ids { 3 });
            },
            { "lists itself" }
        );
    }
    SECTION("P3 CellGraph: offsets of the wrong length")
    {
        expectError(
            comm,
            [&] {
                fp::CellGraph g(Ids { 3, 4 }, { 0, 0 }, Ids {});
            },
            { "needs cells + 1" }
        );
    }
    SECTION("P4 Partition: a part out of range")
    {
        expectError(
            comm,
            [&] {
                fp::Partition p({ 0, 5 }, 2);
            },
            { "cell 1 has part 5, outside [0, 2)" }
        );
    }
    SECTION("P5 Partition: no parts")
    {
        expectError(comm, [&] { fp::Partition p({}, 0); }, { "must be >= 1" });
    }
    SECTION("P6 Partition::checkFits: another number of cells")
    {
        const fp::Partition p({ 0, 0, 0 }, 1);
        const fp::CellGraph g = fp::CellGraph::global({ 0, 0 }, Ids {});
        expectError(comm, [&] { p.checkFits(g); }, { "3 entries but the graph has 1 cells" });
    }
    SECTION("P7 HaloBuilder: depth 0")
    {
        expectError(comm, [&] { fp::HaloBuilder b(env, 0); }, { "halo depth must be >= 1" });
    }
    SECTION("P8 OwnerDirectory: two ranks claim one cell (every rank)")
    {
        const Ids owned { 0, static_cast<fp::GlobalIndex>(me + 1) };
        expectError(
            comm,
            [&] { fp::OwnerDirectory d(comm, owned); },
            { me == 0 ? "cell 0 is owned by both rank"
                      : "rank 0 of this communicator found bad input" }
        );
    }
    SECTION("P9 HaloBuilder::build: a neighbour no rank owns")
    {
        // rank r owns cell r; cell r lists cell 1000 + r, which no rank owns
        const auto id = static_cast<fp::GlobalIndex>(me);
        const fp::CellGraph owned(Ids { id }, { 0, 1 }, Ids { 1000 + id });
        const fp::HaloBuilder b(env);
        expectError(
            comm,
            [&] { static_cast<void>(b.build(owned)); },
            { "no rank owns", std::to_string(1000 + me) }
        );
        static_cast<void>(P);
    }
}
