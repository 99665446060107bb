// SPDX-License-Identifier: MIT
// MPIInit sets MPI_ERRORS_RETURN on MPI_COMM_WORLD: a collective on world whose counts differ
// between ranks is a fieldsync::Error (on the ranks where MPI reports the truncation) that says
// the ranks probably passed different counts, not an abort. Run without check mode.
#include "fieldsync_test/catch.hpp"
#include "fieldsync_test/errorText.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/mpi/collectives.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"

#include <functional>
#include <string>
#include <vector>

namespace fm = fieldsync::mpi;

namespace
{
bool openMpi()
{
    char version[MPI_MAX_LIBRARY_VERSION_STRING] {};
    int length { 0 };
    MPI_Get_library_version(version, &length);
    return std::string(version).find("Open MPI") != std::string::npos;
}

/** @brief Runs @p call on MPI_COMM_WORLD; an Error must name the likely cause. Returns how many
 * ranks threw (agreed over @p sync, a communicator made before the mistake). */
int ranksThatThrew(MPI_Comm sync, const std::function<void()>& call)
{
    const auto what = fieldsync::test::errorText(call);
    if (what)
    {
        INFO(*what);
        CHECK(what->find("different counts") != std::string::npos);
        CHECK(what->find("worldErrors.cpp") != std::string::npos);
    }
    const int threw { what ? 1 : 0 };
    int total { 0 };
    MPI_Allreduce(&threw, &total, 1, MPI_INT, MPI_SUM, sync);
    return total;
}
} // namespace

TEST_CASE("MPI_COMM_WORLD returns errors: different counts end in an Error", "[worldErrors]")
{
    int handlerIsReturn { 0 };
    MPI_Errhandler handler { MPI_ERRHANDLER_NULL };
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &handler);
    handlerIsReturn = handler == MPI_ERRORS_RETURN ? 1 : 0;
    MPI_Errhandler_free(&handler);
    REQUIRE(handlerIsReturn == 1);

    const fm::MPIEnvironment world;
    const fm::MPIEnvironment sync { world.duplicate() };
    REQUIRE(world.sizeRank() >= 2);
    const bool odd { world.rank() == 1 };
    // Open MPI reports the truncation on the ranks that receive too much; MPICH may not at all
    const int minimum { openMpi() ? 1 : 0 };

    SECTION("allReduce with a larger count on one rank")
    {
        std::vector<double> send(odd ? 64U : 4U, 1.0);
        std::vector<double> recv(send.size());
        CHECK(
            ranksThatThrew(
                sync.comm(), [&] { fm::allReduce(send, recv, fm::ReduceOp::Sum, MPI_COMM_WORLD); }
            ) >= minimum
        );
    }
    SECTION("gatherV where rank 1 sends more than the root's counts")
    {
        std::vector<int> counts(static_cast<std::size_t>(world.sizeRank()), 1);
        std::vector<double> mine(odd ? 8U : 1U, 1.0);
        std::vector<double> all(counts.size());
        CHECK(
            ranksThatThrew(
                sync.comm(),
                [&] {
                    fm::gatherV(
                        mine,
                        all,
                        world.rank() == 0 ? counts : std::vector<int> {},
                        0,
                        MPI_COMM_WORLD
                    );
                }
            ) >= minimum
        );
    }
    MPI_Barrier(sync.comm());
}
