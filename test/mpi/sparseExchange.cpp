// SPDX-License-Identifier: MIT
// NBX sparse exchange: every rank receives exactly what was sent to it, and nothing else.
#include "fieldsync_test/catch.hpp"
#include "fieldsync_test/scopedWaitTimeout.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"
#include "fieldsync/mpi/sparseExchange.hpp"

using namespace fieldsync;
using namespace fieldsync::mpi;

namespace
{
/** @brief Whether rank @p from sends to rank @p to in the test pattern (sparse, asymmetric). */
bool sends(int from, int to)
{
    return (from * 7 + to * 3) % 4 == 1 || to == (from + 1) % 5;
}

/** @brief The payload from @p from to @p to: length and values known to both. */
std::vector<std::int64_t> payload(int from, int to)
{
    std::vector<std::int64_t> data(static_cast<std::size_t>((from + 2 * to) % 5));
    for (std::size_t k { 0 }; k < data.size(); ++k)
    {
        data[k] = 1000 * from + 10 * to + static_cast<std::int64_t>(k);
    }
    return data;
}
} // namespace

TEST_CASE("sparseExchange: NBX delivers a sparse asymmetric pattern, including empty messages")
{
    const mpi::MPIEnvironment env;
    const mpi::MPIEnvironment own { env.duplicate() };
    for (int round { 0 }; round < 3; ++round)
    {
        std::vector<SparseMessage> out;
        for (int to { 0 }; to < env.sizeRank(); ++to)
        {
            if (sends(env.rank(), to))
            {
                out.push_back(SparseMessage { to, payload(env.rank(), to) });
            }
        }
        const auto in = sparseExchange(own.comm(), 11 + round, out, "test");
        std::vector<int> expectedFrom;
        for (int from { 0 }; from < env.sizeRank(); ++from)
        {
            if (sends(from, env.rank()))
            {
                expectedFrom.push_back(from);
            }
        }
        REQUIRE(in.size() == expectedFrom.size());
        for (std::size_t m { 0 }; m < in.size(); ++m)
        {
            REQUIRE(in[m].rank == expectedFrom[m]);
            REQUIRE(in[m].data == payload(expectedFrom[m], env.rank()));
        }
    }
}

TEST_CASE("sparseExchange: an exchange one rank never enters is an Error naming call site and tag")
{
    const mpi::MPIEnvironment env;
    if (env.sizeRank() < 2)
    {
        return; // needs a rank that stays away
    }
    // the time-out from the environment, or given to the call (the environment's then would
    // warn and wait on for a minute)
    const bool given { GENERATE(false, true) };
    const mpi::MPIEnvironment own { env.duplicate() };
    const int late { env.sizeRank() - 1 };
    const int tag { 23 };
    if (env.rank() != late)
    {
        // the other ranks send in a ring among themselves: their own sends complete and they
        // wait in the barrier for the late rank
        const int present { env.sizeRank() - 1 };
        const std::vector<SparseMessage> out { { (env.rank() + 1) % present, { 7 } } };
        std::source_location site;
        try
        {
            if (given)
            {
                const mpi::WaitPolicy policy { 0.2, mpi::TimeoutAction::Error };
                site = std::source_location::current();
                static_cast<void>(sparseExchange(own.comm(), tag, out, "lonely", policy, site));
            }
            else
            {
                const test::ScopedWaitTimeout timeout { "0.2", "error" };
                site = std::source_location::current();
                static_cast<void>(sparseExchange(own.comm(), tag, out, "lonely", site));
            }
            FAIL("no fieldsync::Error from an exchange the late rank never entered");
        }
        catch (const Error& error)
        {
            const std::string what { error.what() };
            INFO(what);
            CHECK(what.find("sparse exchange 'lonely (tag 23)'") != std::string::npos);
            CHECK(what.find(toString(site)) != std::string::npos);
            CHECK(what.find("barrier") != std::string::npos);
            CHECK(error.where().line() == site.line());
        }
        MPI_Barrier(env.comm()); // lets the late rank in
    }
    else
    {
        MPI_Barrier(env.comm()); // until every other rank has seen its time-out
        // entering now completes the others' abandoned barrier; nothing was sent to this rank
        CHECK(sparseExchange(own.comm(), tag, {}, "late").empty());
    }
    MPI_Barrier(env.comm()); // keeps the others progressing while the late rank finishes
}
