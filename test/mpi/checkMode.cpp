// SPDX-License-Identifier: MIT
// Check mode (run with FIELDSYNC_CHECK=1): ranks that disagree on a collective (operation, type,
// op, root, algorithm, counts) get the same fieldsync::Error on every rank, naming the ranks and
// values, instead of wrong data, an error on some ranks only, or a hang.
#include "fieldsync_test/catch.hpp"
#include "fieldsync_test/errorText.hpp"
#include "fieldsync_test/scopedWaitTimeout.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/core/settings.hpp"
#include "fieldsync/mpi/collectives.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"
#include "fieldsync/mpi/reductionBatch.hpp"

#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

namespace fm = fieldsync::mpi;

namespace
{
/** @brief Runs @p call, which must throw on this rank an Error whose text holds each of @p parts
 * and names this file; then checks that every rank threw. */
void expectEverywhere(
    const fm::MPIEnvironment& env,
    const std::function<void()>& call,
    std::initializer_list<std::string> parts
)
{
    const auto what = fieldsync::test::errorText(call);
    const int threw { what ? 1 : 0 };
    if (what)
    {
        INFO(*what);
        for (const std::string& part : parts)
        {
            CHECK(what->find(part) != std::string::npos);
        }
        CHECK(what->find("checkMode.cpp") != std::string::npos);
    }
    int everyRank { 0 };
    MPI_Allreduce(&threw, &everyRank, 1, MPI_INT, MPI_MIN, env.comm());
    CHECK(threw == 1);
    CHECK(everyRank == 1);
}

std::vector<double> values(std::size_t n)
{
    return std::vector<double>(n, 1.0);
}
} // namespace

TEST_CASE("check mode is on in this test", "[checkMode]")
{
    REQUIRE(fieldsync::checkMode());
}

TEST_CASE("check mode: different counts, roots, types, ops, operations", "[checkMode]")
{
    const fm::MPIEnvironment world;
    const fm::MPIEnvironment env { world.duplicate() };
    REQUIRE(env.sizeRank() >= 2);
    const bool odd { env.rank() == 1 };
    const std::size_t n { odd ? 3U : 4U };
    const auto sum = fm::ReduceOp::Sum;
    const MPI_Comm comm { env.comm() };

    SECTION("allReduce counts")
    {
        auto send = values(n);
        auto recv = values(4);
        expectEverywhere(
            env,
            [&] { fm::allReduce(send, recv, sum, comm); },
            { "allReduce", "different counts", "rank 1 passed 3", "rank 0 passed 4" }
        );
    }
    SECTION("iAllReduce counts, checked at the post")
    {
        auto send = values(n);
        auto recv = values(4);
        expectEverywhere(
            env,
            [&] { static_cast<void>(fm::iAllReduce(send, recv, sum, comm)); },
            { "iAllReduce", "different counts", "rank 1 passed 3" }
        );
    }
    SECTION("broadcast roots")
    {
        auto data = values(2);
        expectEverywhere(
            env,
            [&] { fm::broadcast(data, odd ? 1 : 0, comm); },
            { "broadcast", "different roots", "rank 1 passed 1", "rank 0 passed 0" }
        );
    }
    SECTION("broadcast: the root sends fewer values than the others expect")
    {
        auto data = values(env.rank() == 0 ? 2U : 3U);
        expectEverywhere(
            env,
            [&] { fm::broadcast(data, 0, comm); },
            { "different counts", "rank 1 passed 3", "rank 0 passed 2" }
        );
    }
    SECTION("element types")
    {
        std::vector<int> ints(1, 1);
        std::vector<double> doubles(1, 1.0);
        expectEverywhere(
            env,
            [&]
            {
                odd ? fm::allReduce(std::span<int>(ints), sum, comm)
                    : fm::allReduce(std::span<double>(doubles), sum, comm);
            },
            { "different element types", "4-byte integer", "8-byte floating-point" }
        );
    }
    SECTION("ops")
    {
        auto data = values(1);
        expectEverywhere(
            env,
            [&] { fm::allReduce(std::span<double>(data), odd ? fm::ReduceOp::Max : sum, comm); },
            { "different ReduceOps", "rank 1 passed Max" }
        );
    }
    SECTION("algorithms: the ring allReduce on rank 1, MPI's own elsewhere")
    {
        // Truth: the choice each rank makes here. Before the algorithm was agreed, the ring rank
        // timed out and the others sat in MPI_Allreduce.
        auto data = values(4);
        fm::CallOptions<> options;
        options.algorithm = odd ? fm::Algorithm::Ring : fm::Algorithm::Native;
        expectEverywhere(
            env,
            [&] { fm::allReduce(std::span<double>(data), sum, comm, options); },
            { "allReduce", "different algorithms", "rank 1 passed Ring", "rank 0 passed Native" }
        );
    }
    SECTION("operations")
    {
        auto data = values(1);
        expectEverywhere(
            env,
            [&] {
                odd ? fm::broadcast(data, 0, comm)
                    : fm::allReduce(std::span<double>(data), sum, comm);
            },
            { "different operations", "rank 1 passed broadcast", "allReduce" }
        );
    }
}

TEST_CASE("check mode: counts of the other families", "[checkMode]")
{
    const fm::MPIEnvironment world;
    const fm::MPIEnvironment env { world.duplicate() };
    const bool odd { env.rank() == 1 };
    const auto P = static_cast<std::size_t>(env.sizeRank());
    const std::size_t n { odd ? 1U : 2U };
    const MPI_Comm comm { env.comm() };
    auto big = values(2 * P);
    auto send = values(n);
    auto recv = values(2);

    const std::vector<std::pair<std::string, std::function<void()>>> calls {
        { "reduce",
          [&]
          {
              fm::reduce(send, recv, fm::ReduceOp::Sum, 0, comm);
          } },
        { "allGather",
          [&]
          {
              fm::allGather(send, big, comm);
          } },
        { "gather",
          [&]
          {
              fm::gather(send, big, 0, comm);
          } },
        { "scatter",
          [&]
          {
              fm::scatter(big, send, 0, comm);
          } },
        { "allToAll",
          [&]
          {
              fm::allToAll(values(n * P), big, comm);
          } },
        { "scan",
          [&]
          {
              fm::scan(send, recv, fm::ReduceOp::Sum, comm);
          } },
    };
    for (const auto& [name, call] : calls)
    {
        INFO(name);
        expectEverywhere(
            env, call, { name + ": ranks passed different counts", "rank 1 passed 1" }
        );
    }
}

TEST_CASE("check mode: V operations against the root's or the peers' counts", "[checkMode]")
{
    const fm::MPIEnvironment world;
    const fm::MPIEnvironment env { world.duplicate() };
    const bool odd { env.rank() == 1 };
    const auto P = static_cast<std::size_t>(env.sizeRank());
    const MPI_Comm comm { env.comm() };
    std::vector<int> twos(P, 2);
    auto big = values(2 * P);

    SECTION("gatherV: rank 1 sends more than the root's recvCounts")
    {
        auto mine = values(odd ? 3U : 2U);
        expectEverywhere(
            env,
            [&] { fm::gatherV(mine, big, env.rank() == 0 ? twos : std::vector<int> {}, 0, comm); },
            { "gatherV", "rank 1 sends 3 values but the root (rank 0) has recvCounts[1] = 2" }
        );
    }
    SECTION("scatterV: rank 1 expects more than the root's sendCounts")
    {
        auto mine = values(odd ? 3U : 2U);
        expectEverywhere(
            env,
            [&] { fm::scatterV(big, env.rank() == 0 ? twos : std::vector<int> {}, mine, 0, comm); },
            { "scatterV", "rank 1 receives 3 values but the root (rank 0) has sendCounts[1] = 2" }
        );
    }
    SECTION("allGatherV: different recvCounts")
    {
        std::vector<int> counts(twos);
        counts[0] = odd ? 1 : 2;
        auto mine = values(static_cast<std::size_t>(counts[static_cast<std::size_t>(env.rank())]));
        expectEverywhere(
            env,
            [&] { fm::allGatherV(mine, big, counts, comm); },
            { "allGatherV", "different recvCounts", "rank 1 passed other values" }
        );
    }
    SECTION("allToAllV: rank 0 sends rank 1 more than it expects")
    {
        std::vector<int> sendCounts(P, 1);
        std::vector<int> recvCounts(P, 1);
        sendCounts[1] = env.rank() == 0 ? 2 : 1;
        auto out = values(2 * P);
        expectEverywhere(
            env,
            [&] { fm::allToAllV(big, sendCounts, out, recvCounts, comm); },
            { "allToAllV", "rank 0 sends 2 values to rank 1, whose recvCounts[0] is 1" }
        );
    }
}

TEST_CASE("check mode: one rank's own mistake is an Error on every rank", "[checkMode]")
{
    const fm::MPIEnvironment world;
    const fm::MPIEnvironment env { world.duplicate() };
    const bool odd { env.rank() == 1 };
    auto send = values(4);
    auto recv = values(odd ? 1U : 4U);
    expectEverywhere(
        env,
        [&] { fm::allReduce(send, recv, fm::ReduceOp::Sum, env.comm()); },
        { odd ? "receive buffer too small" : "rank 1 failed its own checks" }
    );
}

TEST_CASE("check mode: ReductionBatch entries that differ between ranks", "[checkMode]")
{
    // Truth: the batches each rank builds here. Before check mode covered ReductionBatch, the op
    // and type cases were silent garbage and the extra entry an MPI truncation error on the other
    // ranks only; now every rank throws the same Error naming each batch and its ranks.
    const fm::MPIEnvironment world;
    const fm::MPIEnvironment env { world.duplicate() };
    REQUIRE(env.sizeRank() >= 2);
    const int last { env.sizeRank() - 1 };
    const bool odd { env.rank() == last };
    const std::string lastRank { "rank " + std::to_string(last) + ": " };
    std::string others { last == 1 ? "rank 0" : "ranks 0" }; // every rank but the last
    for (int r { 1 }; r < last; ++r)
    {
        others += ", " + std::to_string(r);
    }
    others += ": ";
    double residual { 1.0 };
    double cfl { 2.0 };
    float small { 3.0F };

    SECTION("an op (Max on the last rank, Sum elsewhere), blocking")
    {
        fm::ReductionBatch batch(env.comm());
        batch.add(residual, fm::ReduceOp::Sum)
            .add(cfl, odd ? fm::ReduceOp::Max : fm::ReduceOp::Sum);
        expectEverywhere(
            env,
            [&] { batch.run(); },
            { "ReductionBatch::run: ranks batch different entries",
              others + "2 entries (double Sum, double Sum)",
              lastRank + "2 entries (double Sum, double Max)" }
        );
    }
    SECTION("a type (float on the last rank, double elsewhere), non-blocking")
    {
        fm::ReductionBatch batch(env.comm());
        if (odd)
        {
            batch.add(small, fm::ReduceOp::Max);
        }
        else
        {
            batch.add(cfl, fm::ReduceOp::Max);
        }
        expectEverywhere(
            env,
            [&] { batch.start(); },
            { "ReductionBatch::start: ranks batch different entries",
              others + "1 entries (double Max)",
              lastRank + "1 entries (float Max)" }
        );
        REQUIRE_FALSE(batch.inFlight());
    }
    SECTION("an extra entry on the last rank")
    {
        fm::ReductionBatch batch(env.comm());
        batch.add(residual, fm::ReduceOp::Sum);
        if (odd)
        {
            batch.add(cfl, fm::ReduceOp::Max);
        }
        expectEverywhere(
            env,
            [&] { batch.run(); },
            { others + "1 entries (double Sum)", lastRank + "2 entries (double Sum, double Max)" }
        );
    }
    SECTION("an algorithm (RecursiveDoubling on the last rank, Native elsewhere), non-blocking")
    {
        fm::ReductionBatch batch(
            env.comm(), odd ? fm::Algorithm::RecursiveDoubling : fm::Algorithm::Native
        );
        batch.add(residual, fm::ReduceOp::Sum);
        expectEverywhere(
            env,
            [&] { batch.start(); },
            { "ReductionBatch::start: ranks reduce the batch with different algorithms",
              "rank 0 Native",
              "rank " + std::to_string(last) + " RecursiveDoubling" }
        );
        REQUIRE_FALSE(batch.inFlight());
    }
    SECTION("batches that agree reduce as before")
    {
        fm::ReductionBatch batch(env.comm());
        double rank { static_cast<double>(env.rank()) };
        batch.add(residual, fm::ReduceOp::Sum).add(rank, fm::ReduceOp::Max);
        batch.run();
        CHECK(residual == static_cast<double>(env.sizeRank()));
        CHECK(rank == static_cast<double>(last));
    }
}

TEST_CASE("check mode: calls that agree still give the right results", "[checkMode]")
{
    const fm::MPIEnvironment world;
    const fm::MPIEnvironment env { world.duplicate() };
    const int P { env.sizeRank() };
    double value { 1.0 };
    fm::allReduce(value, fm::ReduceOp::Sum, env.comm());
    CHECK(value == P);
    std::vector<int> counts(static_cast<std::size_t>(P));
    for (int r = 0; r < P; ++r)
    {
        counts[static_cast<std::size_t>(r)] = r + 1;
    }
    std::vector<int> mine(static_cast<std::size_t>(env.rank() + 1), env.rank());
    std::vector<int> all(static_cast<std::size_t>(P * (P + 1) / 2));
    fm::gatherV(mine, all, counts, 0, env.comm());
    fm::allGatherV(mine, all, counts, env.comm());
    CHECK(all.back() == P - 1);
    auto request = fm::iBroadcast(counts, P - 1, env.comm());
    request.wait();
    CHECK(counts[0] == 1);
}

TEST_CASE("check mode: a rank that never calls is named, not waited for", "[checkMode]")
{
    const fm::MPIEnvironment world;
    const fm::MPIEnvironment env { world.duplicate() };
    const int P { env.sizeRank() };
    const int absent { P - 1 };
    auto send = values(4);
    auto recv = values(4);
    if (env.rank() != absent)
    {
        const fieldsync::test::ScopedWaitTimeout timeout("0.5", "error");
        const auto what = fieldsync::test::errorText(
            [&] { fm::allReduce(send, recv, fm::ReduceOp::Sum, env.comm()); }
        );
        REQUIRE(what.has_value());
        INFO(*what);
        CHECK(what->find("'allReduce'") != std::string::npos);
        CHECK(what->find("checkMode.cpp") != std::string::npos);
        const std::string missing { "rank " + std::to_string(absent) + " (of " + std::to_string(P) +
                                    ") has not arrived" };
        CHECK(what->find(missing) != std::string::npos);
    }
    MPI_Barrier(world.comm());
    if (env.rank() == absent)
    {
        // Coming late, with a mistake of its own: its agreement completes the ones the others
        // left in flight, and it raises its own Error without calling the collective itself.
        auto tooSmall = values(1);
        const auto what = fieldsync::test::errorText(
            [&] { fm::allReduce(send, tooSmall, fm::ReduceOp::Sum, env.comm()); }
        );
        REQUIRE(what.has_value());
        CHECK(what->find("receive buffer too small") != std::string::npos);
    }
    MPI_Barrier(world.comm());
}
