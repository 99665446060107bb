// SPDX-License-Identifier: MIT
// MPIInit, MPIEnvironment, type and op traits.
#include "fieldsync_test/catch.hpp"
#include "fieldsync_test/hosts.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/mpi/dataType.hpp"
#include "fieldsync/mpi/environment.hpp"
#include "fieldsync/mpi/reduceOp.hpp"

#include <array>
#include <complex>
#include <string>
#include <vector>

namespace fm = fieldsync::mpi;

namespace
{
/** The world ranks of @p comm's members, in its rank order. */
std::vector<int> worldRanksOf(MPI_Comm comm)
{
    int size { 0 };
    MPI_Comm_size(comm, &size);
    std::vector<int> mine(static_cast<std::size_t>(size));
    int world { 0 };
    MPI_Comm_rank(MPI_COMM_WORLD, &world);
    MPI_Allgather(&world, 1, MPI_INT, mine.data(), 1, MPI_INT, comm);
    return mine;
}
} // namespace

TEST_CASE("MPIEnvironment wraps MPI_COMM_WORLD without owning it", "[environment]")
{
    fm::MPIEnvironment env;
    int rank { -1 };
    int size { -1 };
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(env.rank() == rank);
    CHECK(env.Rank() == rank);
    CHECK(env.sizeRank() == size);
    CHECK(env.comm() == MPI_COMM_WORLD);
    CHECK_FALSE(env.ownsComm());
    CHECK_THROWS_AS(fm::MPIEnvironment(MPI_COMM_NULL), fieldsync::Error);
}

TEST_CASE("split(color, key) groups ranks by color, ordered by key", "[environment]")
{
    fm::MPIEnvironment world;
    const int me = world.rank();
    const int size = world.sizeRank();
    // color: parity; key: reversed rank, so the order inside each group is reversed
    auto sub = world.split(me % 2, size - me);
    CHECK(sub.ownsComm());
    std::vector<int> expected;
    for (int r = size - 1; r >= 0; --r)
    {
        if (r % 2 == me % 2)
        {
            expected.push_back(r);
        }
    }
    CHECK(worldRanksOf(sub.comm()) == expected);
    CHECK(sub.sizeRank() == static_cast<int>(expected.size()));
    CHECK_THROWS_AS(world.split(-1, 0), fieldsync::Error);
}

TEST_CASE("split(name) puts ranks with equal names together", "[environment]")
{
    fm::MPIEnvironment world;
    const int me = world.rank();
    const int size = world.sizeRank();
    // names whose hashes are irrelevant: "group-0" for ranks 0 and 3, "group-1" for 1, 2
    auto nameOf = [](int r)
    {
        return std::string("group-") + ((r == 0 || r == 3) ? "0" : "1");
    };
    auto sub = world.split(nameOf(me));
    std::vector<int> expected;
    for (int r = 0; r < size; ++r)
    {
        if (nameOf(r) == nameOf(me))
        {
            expected.push_back(r);
        }
    }
    CHECK(worldRanksOf(sub.comm()) == expected);
}

TEST_CASE("splitShared and duplicate give owned, working communicators", "[environment]")
{
    fm::MPIEnvironment world;
    auto node = world.splitShared();
    CHECK(node.ownsComm());
    // the node is the ranks on this host (one host, or two under tools/two-hosts.sh)
    const auto hosts = fieldsync::test::hostNamesOf(MPI_COMM_WORLD);
    std::vector<int> sameHost;
    for (std::size_t r { 0 }; r < hosts.size(); ++r)
    {
        if (hosts[r] == fieldsync::test::hostName())
        {
            sameHost.push_back(static_cast<int>(r));
        }
    }
    CHECK(worldRanksOf(node.comm()) == sameHost);
    const int expected { fieldsync::test::expectedNodes() };
    CHECK((expected == 0 || fieldsync::test::distinctHosts(hosts) == expected));
    auto dup = world.duplicate();
    CHECK(dup.ownsComm());
    int result { MPI_UNEQUAL };
    MPI_Comm_compare(dup.comm(), MPI_COMM_WORLD, &result);
    CHECK(result == MPI_CONGRUENT);
    {
        // copies share the communicator; it stays valid while any copy lives
        auto copy = dup;
        CHECK(copy.comm() == dup.comm());
        dup = fm::MPIEnvironment();
        int size { 0 };
        CHECK(MPI_Comm_size(copy.comm(), &size) == MPI_SUCCESS);
        CHECK(size == world.sizeRank());
        int errhandlerIsReturn { 0 };
        MPI_Errhandler handler {};
        MPI_Comm_get_errhandler(copy.comm(), &handler);
        errhandlerIsReturn = handler == MPI_ERRORS_RETURN ? 1 : 0;
        MPI_Errhandler_free(&handler);
        CHECK(errhandlerIsReturn == 1);
    }
}

TEST_CASE("MPIInit when MPI is already initialised neither re-initialises nor finalises", "[init]")
{
    int argc { 0 };
    char** argv { nullptr };
    {
        fm::MPIInit again(argc, argv, fm::ThreadLevel::Single);
        CHECK_FALSE(again.ownsMpi());
        CHECK_FALSE(again.ownsKokkos());
    }
    int finalised { 1 };
    MPI_Finalized(&finalised);
    CHECK(finalised == 0);
    int initialised { 0 };
    MPI_Initialized(&initialised);
    CHECK(initialised == 1);
}

TEST_CASE("MPIInit reports a thread level the MPI library does not provide", "[init]")
{
    int provided { MPI_THREAD_SINGLE };
    MPI_Query_thread(&provided);
    int argc { 0 };
    char** argv { nullptr };
    if (provided < MPI_THREAD_MULTIPLE)
    {
        try
        {
            fm::MPIInit init(argc, argv, fm::ThreadLevel::Multiple);
            FAIL("no Error for an unavailable thread level");
        }
        catch (const fieldsync::Error& error)
        {
            const std::string what = error.what();
            CHECK(what.find("Multiple required") != std::string::npos);
            CHECK(what.find("provides only") != std::string::npos);
        }
        int finalised { 1 };
        MPI_Finalized(&finalised);
        CHECK(finalised == 0); // it did not own MPI, so it did not finalise it
    }
    else
    {
        fm::MPIInit init(argc, argv, fm::ThreadLevel::Multiple);
        CHECK(init.provided() == fm::ThreadLevel::Multiple);
    }
}

TEST_CASE("type traits map to the MPI datatypes", "[types]")
{
    CHECK(fm::detail::MpiTypeInfo<int>::datatype() == MPI_INT);
    CHECK(fm::detail::MpiTypeInfo<double>::datatype() == MPI_DOUBLE);
    CHECK(fm::detail::MpiTypeInfo<std::complex<double>>::datatype() == MPI_CXX_DOUBLE_COMPLEX);
    CHECK(fm::detail::MpiTypeInfo<std::array<float, 4>>::datatype() == MPI_FLOAT);
    CHECK(fm::detail::MpiTypeInfo<std::array<float, 4>>::multiplicity() == 4);
    CHECK(
        fm::detail::MpiTypeInfo<fm::ValueIndex<double>>::typeClass() == fm::detail::TypeClass::Pair
    );
    CHECK(fm::detail::MpiTypeInfo<bool>::typeClass() == fm::detail::TypeClass::Logical);
    static_assert(!fm::MpiCompatible<std::string>);
    static_assert(fm::MpiCompatible<Kokkos::complex<float>>);
    int size { 0 };
    MPI_Type_size(fm::getType<std::array<double, 3>>(), &size);
    CHECK(size == 3 * static_cast<int>(sizeof(double)));
}

TEST_CASE("ReduceOp maps to MPI_Op, with the seed's spelling", "[ops]")
{
    CHECK(fm::getOp(fm::ReduceOp::SUM) == MPI_SUM);
    CHECK(fm::getOp(fm::ReduceOp::Max) == MPI_MAX);
    CHECK(fm::getOp(fm::ReduceOp::MINLOC) == MPI_MINLOC);
    CHECK(std::string(fm::toString(fm::ReduceOp::BOr)) == "BOr");
}
