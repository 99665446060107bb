// SPDX-License-Identifier: MIT
// Request::wait, waitAll and waitAny go through the library's one wait: a non-blocking collective
// that one rank never joins ends, past FIELDSYNC_WAIT_TIMEOUT, in an Error naming its call site.
#include "fieldsync_test/catch.hpp"
#include "fieldsync_test/scopedWaitTimeout.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/core/settings.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"
#include "fieldsync/mpi/collectives.hpp"
#include "fieldsync/mpi/reductions.hpp"
#include "fieldsync/mpi/wait.hpp"

#include <array>
#include <string>
#include <vector>

namespace fm = fieldsync::mpi;

namespace
{
/** @brief Runs @p wait, which must throw a time-out Error naming @p request's operation and the
 * call site that started it (in this file). */
template<typename Wait>
void expectTimeout(Wait&& wait, const fm::Request& request)
{
    const auto started = request.where();
    try
    {
        wait();
        FAIL("no fieldsync::Error thrown by a wait for a collective one rank never joined");
    }
    catch (const fieldsync::Error& error)
    {
        const std::string what { error.what() };
        INFO(what);
        CHECK(what.find("iAllReduce") != std::string::npos);
        CHECK(what.find("has waited") != std::string::npos);
        CHECK(what.find("Likely causes") != std::string::npos);
        CHECK(what.find(fieldsync::toString(started)) != std::string::npos);
        CHECK(std::string(error.where().file_name()).find("wait.cpp") != std::string::npos);
        CHECK(error.where().line() == started.line());
    }
    CHECK(request.active()); // still in flight: it may be waited for again
}
} // namespace

TEST_CASE(
    "Request waits: a collective one rank never joins is an Error naming its call site",
    "[request][wait]"
)
{
    if (fieldsync::checkMode())
    {
        // check mode agrees at the post (a blocking all-gather): the late rank would block the
        // post of the others, so the wait this test times never starts
        SUCCEED("skipped in check mode");
        return;
    }
    const fm::MPIEnvironment env;
    REQUIRE(env.sizeRank() >= 2);
    const fm::MPIEnvironment own { env.duplicate() };
    const int late { env.sizeRank() - 1 };
    const auto staging = GENERATE(fm::Staging::Auto, fm::Staging::Always);
    const fm::CallOptions<> options { staging };
    std::vector<double> value { 1.0 + env.rank() };
    std::vector<double> sum(1);
    const double expected { env.sizeRank() * (env.sizeRank() + 1) / 2.0 };

    std::array<fm::Request, 2> requests; // the first stays empty: waitAny must skip it
    if (env.rank() != late)
    {
        requests[1] = fm::iAllReduce(value, sum, fm::ReduceOp::Sum, own.comm(), options);
        {
            const fieldsync::test::ScopedWaitTimeout timeout { "0.2", "error" };
            expectTimeout([&] { requests[1].wait(); }, requests[1]);
            expectTimeout([&] { fm::Request::waitAll(requests); }, requests[1]);
            expectTimeout([&] { static_cast<void>(fm::Request::waitAny(requests)); }, requests[1]);
        }
        MPI_Barrier(env.comm()); // the late rank joins only now
        CHECK(fm::Request::waitAny(requests) == 1);
    }
    else
    {
        MPI_Barrier(env.comm()); // until every other rank has seen its time-out
        requests[1] = fm::iAllReduce(value, sum, fm::ReduceOp::Sum, own.comm(), options);
        requests[1].wait();
    }
    CHECK_FALSE(requests[1].active());
    CHECK(sum[0] == expected); // completed after the errors, staged result copied back
}

TEST_CASE(
    "a blocking collective by one of fieldsync's algorithms that one rank joins late is a time-out "
    "Error naming its call site, on every rank",
    "[algorithms][wait]"
)
{
    if (fieldsync::checkMode())
    {
        SUCCEED("skipped in check mode: the agreement before the post reports the late rank");
        return;
    }
    const fm::MPIEnvironment env;
    REQUIRE(env.sizeRank() >= 2);
    const fm::MPIEnvironment own { env.duplicate() };
    const int late { env.sizeRank() - 1 };
    // a ring allreduce has at least two rounds: the late rank's first round meets the others'
    // (left in flight by their errors), its second waits for rounds they never post
    const fm::CallOptions<> ring { fm::Staging::Auto, {}, fm::Algorithm::Ring };
    std::vector<double> value { 1.0 + env.rank() };
    std::vector<double> sum(1);
    const auto joinLate = [&]
    {
        const fieldsync::test::ScopedWaitTimeout timeout { "0.2", "error" };
        const auto where = std::source_location::current();
        try
        {
            fm::allReduce(value, sum, fm::ReduceOp::Sum, own.comm(), ring, where);
            FAIL("no fieldsync::Error from a blocking Ring allReduce one rank joined late");
        }
        catch (const fieldsync::Error& error)
        {
            const std::string what { error.what() };
            INFO(what);
            CHECK(what.find("allReduce") != std::string::npos);
            CHECK(what.find("has waited") != std::string::npos);
            CHECK(what.find(fieldsync::toString(where)) != std::string::npos);
            CHECK(error.where().line() == where.line());
        }
    };
    if (env.rank() != late)
    {
        joinLate();
    }
    MPI_Barrier(env.comm()); // the late rank joins only once the others have given up
    if (env.rank() == late)
    {
        joinLate();
    }
    MPI_Barrier(env.comm());
    // the ranks go on: a correct collective on a fresh communicator
    const fm::MPIEnvironment next { env.duplicate() };
    fm::allReduce(value, sum, fm::ReduceOp::Sum, next.comm(), ring);
    CHECK(sum[0] == env.sizeRank() * (env.sizeRank() + 1) / 2.0);
}

TEST_CASE("FIELDSYNC_WAIT_YIELD is a boolean", "[.yield-setting]")
{
    // run alone with FIELDSYNC_WAIT_YIELD=sometimes (CTest: test_request_wait.bad_yield): it is
    // read once per process, by the first wait that outlasts its fast phase (64 tests)
    REQUIRE(fieldsync::envString("FIELDSYNC_WAIT_YIELD", "") == "sometimes");
    int tests { 0 };
    try
    {
        fm::waitWithTimeout(
            [&tests] { return ++tests > 1000; },
            [] { return std::string("nothing"); },
            fm::WaitPolicy {},
            "test",
            "yield-setting",
            std::source_location::current()
        );
        FAIL("no fieldsync::Error for FIELDSYNC_WAIT_YIELD=sometimes");
    }
    catch (const fieldsync::Error& error)
    {
        const std::string what { error.what() };
        INFO(what);
        CHECK(what.find("FIELDSYNC_WAIT_YIELD") != std::string::npos);
        CHECK(what.find("sometimes") != std::string::npos);
        CHECK(tests == 64); // reported when the fast phase ends, before another test
    }
}

TEST_CASE("FIELDSYNC_WAIT_TIMEOUT rejects values that never report", "[request][wait]")
{
    for (const char* value : { "inf", "nan", "-1", "0", "soon" })
    {
        const fieldsync::test::ScopedWaitTimeout timeout { value, "warn" };
        INFO(value);
        try
        {
            static_cast<void>(fm::WaitPolicy::fromEnvironment());
            FAIL("no fieldsync::Error for FIELDSYNC_WAIT_TIMEOUT=" << value);
        }
        catch (const fieldsync::Error& error)
        {
            const std::string what { error.what() };
            CHECK(
                what.find(std::string("FIELDSYNC_WAIT_TIMEOUT='") + value + "'") !=
                std::string::npos
            );
        }
    }
    const fieldsync::test::ScopedWaitTimeout timeout { "2.5", "error" };
    CHECK(fm::WaitPolicy::fromEnvironment().timeoutSeconds == 2.5);
}
