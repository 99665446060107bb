// SPDX-License-Identifier: MIT
// CallOptions::matchId: collectives with ids started in opposite orders on even and odd ranks,
// each result against a closed form of the rank and the size; a rank that uses an id the others
// do not is an Error on every rank naming the id. The doc/collectives.md example is a region here.
#include "fieldsync_test/catch.hpp"
#include "fieldsync_test/errorText.hpp"

#include "fieldsync/mpi/collectives.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"

#include <string>
#include <vector>

namespace fm = fieldsync::mpi;

namespace
{
/** @brief 1 + 2 + ... + size. */
long sumOfRanksPlusOne(long size)
{
    return size * (size + 1) / 2;
}

/** @brief 0 + 1 + 4 + ... + (size - 1)^2. */
long sumOfSquares(long size)
{
    return (size - 1) * size * (2 * size - 1) / 6;
}

/** @brief True on every rank of @p comm. */
bool everywhere(bool mine, MPI_Comm comm)
{
    int all { mine ? 1 : 0 };
    MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, comm);
    return all == 1;
}
} // namespace

TEST_CASE("MatchId: names and integers", "[matchId]")
{
    CHECK(fm::MatchId {}.empty());
    CHECK_FALSE(fm::MatchId { 0 }.empty());
    CHECK(fm::MatchId { "residual" }.shown() == "\"residual\"");
    CHECK(fm::MatchId { 42 }.shown() == "42");
    CHECK(fm::MatchId { std::string("7") } != fm::MatchId { 7 });
    CHECK(fm::MatchId { 7L } == fm::MatchId { 7 });
}

TEST_CASE("matchId: non-blocking collectives started in opposite orders", "[matchId]")
{
    const fm::MPIEnvironment env;
    const MPI_Comm comm = env.comm();
    const int rank = env.rank();
    const long size = env.sizeRank();
    const fm::CallOptions<> sumOptions { .matchId = "sum" };
    const fm::CallOptions<> squaresOptions { .matchId = 7 };
    const fm::CallOptions<> gatherOptions { .matchId = std::string("gather") };
    for (int round = 0; round < 4; ++round)
    {
        long sum { rank + 1 };
        long squares { static_cast<long>(rank) * rank };
        std::vector<int> mine { 3 * rank + round };
        std::vector<int> all(static_cast<std::size_t>(size), -1);
        std::vector<fm::Request> requests;
        const auto startSum = [&]
        {
            requests.push_back(
                fm::iAllReduce(std::span(&sum, 1), fm::ReduceOp::Sum, comm, sumOptions)
            );
        };
        const auto startSquares = [&]
        {
            requests.push_back(
                fm::iAllReduce(std::span(&squares, 1), fm::ReduceOp::Sum, comm, squaresOptions)
            );
        };
        const auto startGather = [&]
        {
            requests.push_back(fm::iAllGather(mine, all, comm, gatherOptions));
        };
        if (round == 0)
        {
            // the first use of each id is collective: the same order everywhere
            startSum();
            startSquares();
            startGather();
        }
        else if (rank % 2 == 0)
        {
            startSum();
            startSquares();
            startGather();
        }
        else
        {
            startGather();
            startSquares();
            startSum();
        }
        fm::Request::waitAll(requests);
        CHECK(sum == sumOfRanksPlusOne(size));
        CHECK(squares == sumOfSquares(size));
        for (int r = 0; r < size; ++r)
        {
            CHECK(all[static_cast<std::size_t>(r)] == 3 * r + round);
        }
    }
}

TEST_CASE("matchId: a blocking call runs while a call of another id is in flight", "[matchId]")
{
    const fm::MPIEnvironment env;
    const MPI_Comm comm = env.comm();
    const int rank = env.rank();
    const int size = env.sizeRank();
    // [matchIdBlocking]
    // ids made once, in the same order on every rank (the first use of an id is collective)
    double residual { 1.0 + rank };
    std::vector<double> settings(2, rank == 0 ? 0.25 : 0.0);
    fm::allReduce(residual, fm::ReduceOp::Max, comm, fm::CallOptions<> { .matchId = "residual" });
    fm::broadcast(settings, 0, comm, fm::CallOptions<> { .matchId = "settings" });

    // then in any order: here even ranks start the residual first, odd ranks the settings
    residual = 1.0 + rank;
    settings.assign(2, rank == 0 ? 0.5 : 0.0);
    if (rank % 2 == 0)
    {
        fm::Request pending = fm::iAllReduce(
            std::span(&residual, 1),
            fm::ReduceOp::Max,
            comm,
            fm::CallOptions<> { .matchId = "residual" }
        );
        // blocking: waits for the "settings" calls of the other ranks only
        fm::broadcast(settings, 0, comm, fm::CallOptions<> { .matchId = "settings" });
        pending.wait();
    }
    else
    {
        fm::broadcast(settings, 0, comm, fm::CallOptions<> { .matchId = "settings" });
        fm::Request pending = fm::iAllReduce(
            std::span(&residual, 1),
            fm::ReduceOp::Max,
            comm,
            fm::CallOptions<> { .matchId = "residual" }
        );
        pending.wait();
    }
    // [matchIdBlocking]
    CHECK(residual == static_cast<double>(size));
    CHECK(settings[0] == 0.5);
    CHECK(settings[1] == 0.5);
}

TEST_CASE("matchId: calls without an id keep their order between calls with ids", "[matchId]")
{
    const fm::MPIEnvironment env;
    const MPI_Comm comm = env.comm();
    const int rank = env.rank();
    const long size = env.sizeRank();
    long withId { rank + 1 };
    long without { static_cast<long>(rank) * rank };
    fm::Request first = fm::iAllReduce(
        std::span(&withId, 1), fm::ReduceOp::Sum, comm, fm::CallOptions<> { .matchId = 11 }
    );
    fm::allReduce(without, fm::ReduceOp::Sum, comm);
    first.wait();
    CHECK(withId == sumOfRanksPlusOne(size));
    CHECK(without == sumOfSquares(size));
}

TEST_CASE(
    "matchId: a rank that uses an id the others do not is an Error on every rank", "[matchId]"
)
{
    const fm::MPIEnvironment env;
    const MPI_Comm comm = env.comm();
    const int rank = env.rank();
    if (env.sizeRank() < 2)
    {
        SUCCEED("one rank: no other rank to disagree with");
        return;
    }
    double value { 1.0 };
    const fm::MatchId id = rank == 0 ? fm::MatchId { "only rank 0" } : fm::MatchId { 99 };
    const auto what = fieldsync::test::errorText(
        [&] { fm::allReduce(value, fm::ReduceOp::Sum, comm, fm::CallOptions<> { .matchId = id }); }
    );
    REQUIRE(what.has_value());
    INFO(*what);
    CHECK(what->find("\"only rank 0\"") != std::string::npos);
    CHECK(what->find("matchId 99") != std::string::npos);
    CHECK(what->find("matchId.cpp:") != std::string::npos);
    CHECK(everywhere(what.has_value(), comm));

    // nothing was made: the communicator and both ids work afterwards
    value = 1.0;
    fm::allReduce(value, fm::ReduceOp::Sum, comm, fm::CallOptions<> { .matchId = "only rank 0" });
    CHECK(value == static_cast<double>(env.sizeRank()));
}
