// SPDX-License-Identifier: MIT
#include "fieldsync_test/catch.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/core/logger.hpp"

#include <mpi.h>

TEST_CASE("Error carries message, call site, rank and MPI text")
{
    int worldRank { -1 };
    MPI_Comm_rank(MPI_COMM_WORLD, &worldRank);

    const auto here = std::source_location::current();
    const fieldsync::Error error("bad value 42", here);
    REQUIRE(error.message() == "bad value 42");
    REQUIRE(error.rank() == worldRank);
    REQUIRE(error.where().line() == here.line());
    REQUIRE(error.mpiErrorCode() == 0);
    REQUIRE(error.mpiErrorString().empty());
    const std::string what = error.what();
    REQUIRE(what.find("bad value 42") != std::string::npos);
    REQUIRE(what.find("rank " + std::to_string(worldRank)) != std::string::npos);
    REQUIRE(what.find("error.cpp:" + std::to_string(here.line())) != std::string::npos);
}

TEST_CASE("FIELDSYNC_MPI turns a failing MPI call into an Error with the MPI error string")
{
    MPI_Comm dup { MPI_COMM_NULL };
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    int value { 1 };
    try
    {
        // root out of range: the MPI library itself rejects it
        FIELDSYNC_MPI(MPI_Bcast(&value, 1, MPI_INT, 1000, dup));
        FAIL("MPI_Bcast with root 1000 did not fail");
    }
    catch (const fieldsync::Error& error)
    {
        REQUIRE(error.mpiErrorCode() != MPI_SUCCESS);
        REQUIRE_FALSE(error.mpiErrorString().empty());
        REQUIRE(std::string(error.what()).find("MPI_Bcast") != std::string::npos);
    }
    MPI_Comm_free(&dup);
}

TEST_CASE("FIELDSYNC_CHECK throws only when the condition fails")
{
    REQUIRE_NOTHROW(
        []
        {
            FIELDSYNC_CHECK(1 + 1 == 2, "never");
        }()
    );
    REQUIRE_THROWS_AS(
        []
        {
            FIELDSYNC_CHECK(1 + 1 == 3, "arithmetic");
        }(),
        fieldsync::Error
    );
}

TEST_CASE("The fieldsync logger is registered with spdlog at the level FIELDSYNC_LOG_LEVEL gives")
{
    auto& log = fieldsync::logger();
    REQUIRE(log.name() == "fieldsync");
    REQUIRE(spdlog::get("fieldsync").get() == &log);
    // the tests run with FIELDSYNC_LOG_LEVEL=warn (cmake/FieldsyncTesting.cmake), the default
    REQUIRE(log.level() == spdlog::level::warn);
}
