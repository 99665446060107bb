// SPDX-License-Identifier: MIT
// The agreement before collective set-up calls (run with FIELDSYNC_CHECK=1, and without check
// mode as test_setup_agreement.default, except the cases tagged [check]: the halo Communicator
// constructor with its pattern checked is agreed in check mode only, since its answered exchange
// names a rank that never comes by itself; doc/reliability.md): a
// rank that skips a set-up call (a halo Communicator, a CartesianTopology, a GraphTopology,
// MPIEnvironment::split) is named, with the caller's line, by the ranks that made it, within a
// short wait time-out whose action is error; ranks that make different set-up calls get an
// Error naming both calls and sites. After each case every rank goes on, and a correct halo
// exchange gives every ghost the truth of its global id.
#include "fieldsync_test/catch.hpp"
#include "fieldsync_test/errorText.hpp"
#include "fieldsync_test/scopedWaitTimeout.hpp"

#include "fieldsync/core/settings.hpp"
#include "fieldsync/halo/communicator.hpp"
#include "fieldsync/halo/structuredBlock.hpp"
#include "fieldsync/mpi/cartesianTopology.hpp"
#include "fieldsync/mpi/communicatorHierarchy.hpp"
#include "fieldsync/mpi/graphTopology.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"
#include "fieldsync/partition/migration.hpp"

#include <Kokkos_Core.hpp>

#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace fh = fieldsync::halo;
namespace fm = fieldsync::mpi;
namespace fp = fieldsync::partition;
namespace ft = fieldsync::test;

namespace
{
using Field = Kokkos::View<double*, Kokkos::HostSpace>;
constexpr int owned { 4 }; /**< owned cells per rank; cell 4 is a ghost of the next rank's cell
                              0, cell 5 one of the previous rank's cell 3 */

/** @brief The global id of local cell @p cell on rank @p me of @p ranks (ring). */
long globalId(int me, int ranks, int cell)
{
    const int next { (me + 1) % ranks };
    const int previous { (me + ranks - 1) % ranks };
    return cell < owned    ? long { me } * owned + cell
           : cell == owned ? long { next } * owned
                           : long { previous } * owned + owned - 1;
}

/** @brief The value of global id @p id (the independent truth). */
double truth(long id)
{
    return 1000.0 + 3.0 * static_cast<double>(id);
}

/** @brief A correct halo exchange on a ring of @p env's ranks; the cells whose value is wrong. */
int wrongGhostsAfterExchange(const fm::MPIEnvironment& env)
{
    const int me { env.rank() };
    const int ranks { env.sizeRank() };
    const int next { (me + 1) % ranks };
    const int previous { (me + ranks - 1) % ranks };
    fh::RankSimplexCommMap send(ranks);
    fh::RankSimplexCommMap receive(ranks);
    if (next == previous) // 2 ranks: both ghosts from one neighbour, in the same order
    {
        send.setRank(next, { 0, owned - 1 });
        receive.setRank(next, { owned, owned + 1 });
    }
    else
    {
        send.setRank(previous, { 0 });
        send.setRank(next, { owned - 1 });
        receive.setRank(next, { owned });
        receive.setRank(previous, { owned + 1 });
    }
    fh::Communicator comm(env, send, receive);
    Field f("f", owned + 2);
    for (int c = 0; c < owned + 2; ++c)
    {
        f(c) = c < owned ? truth(globalId(me, ranks, c)) : -1.0;
    }
    comm.startComm(f, "ring");
    comm.finaliseComm(f, "ring");
    int wrong { 0 };
    for (int c = 0; c < owned + 2; ++c)
    {
        wrong += f(c) == truth(globalId(me, ranks, c)) ? 0 : 1;
    }
    return wrong;
}

/**
 * @brief The last rank skips @p setUp; the others make it and must get an Error, at a 0.1 s
 * time-out with action error, naming this file, @p call and the skipping rank. Then every rank
 * goes on, and a correct exchange (which agrees on its own set-up) must give exact ghosts.
 *
 * The time-out is short because no wait here can complete: the agreement waits for the absent
 * rank, so a longer one only costs time (it was 1 s: 7 s of each run). Who has arrived is learnt
 * after it, from the arrival notices the waiting ranks send each other and collect for 0.2 s
 * (src/mpi/timedAllGather.cpp): that needs the present ranks to reach their waits less than the
 * time-out and 0.2 s apart, so they leave a barrier of their own just before the call. With
 * @p late a rank, that rank comes 0.5 s after the barrier, later than that grace period: with
 * @p timeout "1" it is within the time-out, so it must not be named.
 */
void skippedByLastRank(
    const std::function<void()>& setUp,
    const std::string& call,
    const char* timeout = "0.1",
    int late = -1
)
{
    const fm::MPIEnvironment env;
    const int absent { env.sizeRank() - 1 };
    MPI_Comm present { MPI_COMM_NULL };
    MPI_Comm_split(MPI_COMM_WORLD, env.rank() == absent ? MPI_UNDEFINED : 0, env.rank(), &present);
    if (env.rank() != absent)
    {
        MPI_Barrier(present);
        MPI_Comm_free(&present);
        if (env.rank() == late)
        {
            std::this_thread::sleep_for(std::chrono::milliseconds(500));
        }
        const ft::ScopedWaitTimeout waitTimeout(timeout, "error");
        const auto what = ft::errorText(setUp);
        REQUIRE(what.has_value());
        INFO(*what);
        CHECK(what->find("rank " + std::to_string(env.rank()) + ":") != std::string::npos);
        CHECK(what->find("setUpAgreement.cpp:") != std::string::npos);
        CHECK(what->find("'" + call + "'") != std::string::npos);
        CHECK(
            what->find(
                "rank " + std::to_string(absent) + " (of " + std::to_string(env.sizeRank()) +
                ") has not arrived"
            ) != std::string::npos
        );
    }
    MPI_Barrier(MPI_COMM_WORLD); // world itself: the agreement left in flight is not on it
    CHECK(wrongGhostsAfterExchange(env) == 0);
}
} // namespace

TEST_CASE("check mode is on for these tests", "[setup][check]")
{
    REQUIRE(fieldsync::checkMode());
}

TEST_CASE("a rank that skips the halo Communicator constructor is named", "[setup][check]")
{
    const fm::MPIEnvironment env;
    skippedByLastRank(
        [&]
        {
            fh::RankSimplexCommMap none(env.sizeRank());
            const fh::Communicator comm(env, none, none);
        },
        "halo::Communicator constructor"
    );
}

TEST_CASE("a rank that skips a CartesianTopology is named", "[setup]")
{
    const fm::MPIEnvironment env;
    skippedByLastRank(
        [&] { const fm::CartesianTopology grid(env, { env.sizeRank() }); },
        "CartesianTopology constructor"
    );
}

TEST_CASE("a rank that skips a GraphTopology is named", "[setup]")
{
    const fm::MPIEnvironment env;
    skippedByLastRank(
        [&] { const fm::GraphTopology graph(env, {}, {}, {}, {}); }, "GraphTopology constructor"
    );
}

TEST_CASE("a rank that skips MPIEnvironment::split is named", "[setup]")
{
    const fm::MPIEnvironment env;
    skippedByLastRank(
        [&] { static_cast<void>(env.split(0, env.rank())); }, "MPIEnvironment::split"
    );
}

TEST_CASE("a present rank that comes late, within the time-out, is not named absent", "[setup]")
{
    // on 3 or more ranks rank 1 comes late; the Error must name the skipping rank alone
    const fm::MPIEnvironment env;
    skippedByLastRank(
        [&] { static_cast<void>(env.split(0, env.rank())); },
        "MPIEnvironment::split",
        "1",
        env.sizeRank() >= 3 ? 1 : -1
    );
}

TEST_CASE("ranks that make different set-up calls get an Error naming both", "[setup][check]")
{
    const fm::MPIEnvironment env;
    int line { 0 }; // this rank's call
    const auto what = ft::errorText(
        [&]
        {
            if (env.rank() == 0) // rank 0: a Communicator; the others: a CartesianTopology
            {
                fh::RankSimplexCommMap none(env.sizeRank());
                line = __LINE__ + 1;
                const fh::Communicator comm(env, none, none);
            }
            else
            {
                line = __LINE__ + 1;
                const fm::CartesianTopology grid(env, { env.sizeRank() });
            }
        }
    );
    REQUIRE(what.has_value());
    INFO(*what);
    const std::string mine { env.rank() == 0 ? "halo::Communicator constructor"
                                             : "CartesianTopology constructor" };
    const std::string theirs { env.rank() == 0 ? "CartesianTopology constructor"
                                               : "halo::Communicator constructor" };
    CHECK(what->find("ranks made different collective set-up calls") != std::string::npos);
    CHECK(what->find("this rank called " + mine + " at ") != std::string::npos);
    CHECK(what->find("setUpAgreement.cpp:" + std::to_string(line)) != std::string::npos);
    const auto other = what->find("called " + theirs + " at ");
    REQUIRE(other != std::string::npos);
    CHECK(what->find("setUpAgreement.cpp:", other) != std::string::npos);
    CHECK(wrongGhostsAfterExchange(env) == 0);
}

TEST_CASE("ranks that make different blocking set-up calls get an Error naming both", "[setup]")
{
    // In every mode: rank 0 makes a CartesianTopology, the others split. Before (without check
    // mode), they met in different blocking MPI calls and waited without a word.
    const fm::MPIEnvironment env;
    const auto what = ft::errorText(
        [&]
        {
            if (env.rank() == 0)
            {
                const fm::CartesianTopology grid(env, { env.sizeRank() });
            }
            else
            {
                static_cast<void>(env.split(0, env.rank()));
            }
        }
    );
    REQUIRE(what.has_value());
    INFO(*what);
    CHECK(what->find("ranks made different collective set-up calls") != std::string::npos);
    CHECK(
        what->find(
            env.rank() == 0 ? "called MPIEnvironment::split at"
                            : "called CartesianTopology "
                              "constructor at"
        ) != std::string::npos
    );
    CHECK(wrongGhostsAfterExchange(env) == 0);
}

TEST_CASE("ranks that pass different CartesianTopology dims get an Error naming them", "[setup]")
{
    // Truth: the dims each rank passes here; before, MPI_Cart_create took both silently.
    const fm::MPIEnvironment env;
    const int n { env.sizeRank() };
    const std::vector<int> dims { env.rank() == 1 ? std::vector<int> { 1, n }
                                                  : std::vector<int> { n, 1 } };
    int line { 0 };
    const auto what = ft::errorText(
        [&]
        {
            line = __LINE__ + 1;
            const fm::CartesianTopology grid(env, dims);
        }
    );
    REQUIRE(what.has_value());
    INFO(*what);
    CHECK(what->find("ranks passed different dims") != std::string::npos);
    CHECK(what->find("CartesianTopology constructor") != std::string::npos);
    CHECK(what->find("rank 1 passed (1, " + std::to_string(n) + ", 0, 0)") != std::string::npos);
    CHECK(what->find("rank 0 passed (" + std::to_string(n) + ", 1, 0, 0)") != std::string::npos);
    CHECK(what->find("setUpAgreement.cpp:" + std::to_string(line)) != std::string::npos);
    CHECK(wrongGhostsAfterExchange(env) == 0);
}

TEST_CASE("a different StructuredBlock box on one rank is an Error naming the boxes", "[setup]")
{
    // Truth: the boxes each rank passes here; before, each rank split its own box, silently.
    const fm::MPIEnvironment env;
    const fm::CartesianTopology grid(env, { env.sizeRank() }, { true });
    const std::int64_t nx { env.rank() == 1 ? 12 : 10 };
    int line { 0 };
    const auto what = ft::errorText(
        [&]
        {
            line = __LINE__ + 1;
            const fh::StructuredBlock block(grid, { nx, 4, 3 }, 1);
        }
    );
    REQUIRE(what.has_value());
    INFO(*what);
    CHECK(what->find("ranks passed different global box") != std::string::npos);
    CHECK(what->find("rank 1 passed (12, 4, 3, 1, 1, 0)") != std::string::npos);
    CHECK(what->find("rank 0 passed (10, 4, 3, 1, 1, 0)") != std::string::npos);
    CHECK(what->find("setUpAgreement.cpp:" + std::to_string(line)) != std::string::npos);
    CHECK(wrongGhostsAfterExchange(env) == 0);
}

TEST_CASE("set-up calls that agree build as before", "[setup]")
{
    const fm::MPIEnvironment env;
    const fm::MPIEnvironment half = env.split(env.rank() % 2, env.rank());
    CHECK(half.sizeRank() == (env.sizeRank() + 1 - env.rank() % 2) / 2);
    const fm::MPIEnvironment copy = env.duplicate();
    CHECK(copy.sizeRank() == env.sizeRank());
    const fm::CartesianTopology grid(env, { env.sizeRank() });
    CHECK(grid.environment().sizeRank() == env.sizeRank());
    CHECK(wrongGhostsAfterExchange(copy) == 0);
}

TEST_CASE("a rank that skips CommunicatorHierarchy::pushCommunicator is named", "[setup]")
{
    // Before: the wait named the library's MPI_Comm_idup, not the call, and no rank.
    const fm::MPIEnvironment env;
    fm::CommunicatorHierarchy hierarchy(env);
    skippedByLastRank(
        [&] { hierarchy.pushCommunicator("all"); }, "CommunicatorHierarchy::pushCommunicator"
    );
}

TEST_CASE(
    "ranks that pass different counts to a hierarchy allReduce get an Error", "[setup][check]"
)
{
    // Truth: the counts each rank passes here. Before, the Error named a step (reduce,
    // reduceScatter, broadcast) on some ranks, and the others timed out inside another step.
    const fm::MPIEnvironment env;
    fm::CommunicatorHierarchy hierarchy(env);
    hierarchy.pushCommunicator(env.rank() % 2 == 0 ? "even" : "odd");
    for (const fm::Algorithm algorithm : { fm::Algorithm::Tree3Step, fm::Algorithm::NodeAware })
    {
        std::vector<double> values(env.rank() == 0 ? 3 : 4, 1.0);
        int line { 0 };
        const auto what = ft::errorText(
            [&]
            {
                line = __LINE__ + 1;
                hierarchy.allReduce(values, fm::ReduceOp::Sum, algorithm);
            }
        );
        REQUIRE(what.has_value());
        INFO(*what);
        CHECK(what->find("CommunicatorHierarchy::allReduce") != std::string::npos);
        CHECK(what->find("ranks passed different count") != std::string::npos);
        CHECK(what->find("rank 0 passed (3, 8, ") != std::string::npos);
        CHECK(what->find("rank 1 passed (4, 8, ") != std::string::npos);
        CHECK(what->find("setUpAgreement.cpp:" + std::to_string(line)) != std::string::npos);
    }
    std::vector<double> agreed(4, 1.0 + env.rank());
    hierarchy.allReduce(agreed, fm::ReduceOp::Sum, fm::Algorithm::NodeAware);
    const double sum { env.sizeRank() * (env.sizeRank() + 1) / 2.0 }; // 1 + 2 + ... + P
    CHECK(agreed == std::vector<double>(4, sum));
}

namespace
{
/** @brief One isolated cell per rank (global id = rank), moved to the next rank. */
fp::Migration ringMigration(const fm::MPIEnvironment& env)
{
    const fp::CellGraph cell({ env.rank() }, { 0, 0 }, {});
    const std::vector<int> owners { (env.rank() + 1) % env.sizeRank() };
    return fp::Migration(env, cell, owners);
}
} // namespace

TEST_CASE("a rank that leaves before a Migration is named", "[setup]")
{
    // The last rank's Migration is never made (as when its scope ended in an exception of its
    // own): before, the others waited inside MPI with no message.
    const fm::MPIEnvironment env;
    skippedByLastRank([&] { static_cast<void>(ringMigration(env)); }, "Migration constructor");
}

TEST_CASE("a rank that leaves before Migration::migrate is named; then it migrates", "[setup]")
{
    // Truth: after the skipped call, a migration of the value 10 + rank carries each rank's
    // cell to the next rank, so every rank holds 10 + its previous rank.
    const fm::MPIEnvironment env;
    const fp::Migration migration { ringMigration(env) };
    Kokkos::View<double*, Kokkos::HostSpace> field("moved", 1);
    skippedByLastRank([&] { migration.migrate(1, field); }, "Migration::migrate");
    field(0) = 10.0 + env.rank();
    migration.migrate(1, field);
    REQUIRE(field.extent(0) == 1);
    CHECK(field(0) == 10.0 + (env.rank() + env.sizeRank() - 1) % env.sizeRank());
}
