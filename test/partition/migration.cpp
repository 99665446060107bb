// SPDX-License-Identifier: MIT
// Migration on 1..4 ranks: cells move to owners given by a known function of their id, and
// fields of several view types (doubles, ints, multi-component in both layouts) follow. Every
// migrated value is checked against the known function of its cell's id, every neighbour list
// against the graph's formula, and no cell is lost or duplicated (count, sum and xor of the
// ids over the ranks against the formulas). Bad owners are an Error on every rank.
#include "fieldsync_test/catch.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/mpi/collectives.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"
#include "fieldsync/partition/migration.hpp"
#include "testGraphs.hpp"

#include <Kokkos_Core.hpp>

#include <vector>

using namespace fieldsync;
using namespace fieldsync::partition;

namespace
{
/** @brief The known owner of a cell after the migration: scattered, so most cells move. */
int ownerAfter(GlobalIndex id, int nRanks)
{
    return static_cast<int>((id * 7 + 3) % nRanks);
}

/** @brief Counts, over all ranks, the cells of @p cells whose owner, row or value is wrong. */
template<typename Scalar, typename Ints, typename Vector, typename Left>
int wrongRows(
    const CellGraph& whole,
    const CellGraph& cells,
    int rank,
    int nRanks,
    const Scalar& scalar,
    const Ints& ints,
    const Vector& vector,
    const Left& left
)
{
    int wrong { 0 };
    for (std::size_t i { 0 }; i < cells.nCells(); ++i)
    {
        const GlobalIndex id { cells.globalId(i) };
        const auto truth = whole.neighbours(static_cast<std::size_t>(id));
        const auto got = cells.neighbours(i);
        wrong += ownerAfter(id, nRanks) == rank ? 0 : 1;
        wrong += (i == 0 || cells.globalId(i - 1) < id) ? 0 : 1; // ascending
        wrong += std::equal(truth.begin(), truth.end(), got.begin(), got.end()) ? 0 : 1;
        wrong += scalar(i) == test::valueOf(id) ? 0 : 1;
        wrong += ints(i) == static_cast<int>(id) ? 0 : 1;
        for (std::size_t c { 0 }; c < 3; ++c)
        {
            wrong += vector(i, c) == test::componentOf(id, c) ? 0 : 1;
            wrong += left(i, c) == -test::componentOf(id, c) ? 0 : 1;
        }
    }
    return wrong;
}
} // namespace

TEST_CASE("Migration: every value follows its cell, no cell lost or duplicated")
{
    const mpi::MPIEnvironment env;
    const int p { env.sizeRank() };
    const CellGraph whole { test::grid(17, 13) };
    const auto n = static_cast<GlobalIndex>(whole.nCells());
    std::vector<int> blocks(whole.nCells());
    for (GlobalIndex id { 0 }; id < n; ++id)
    {
        blocks[static_cast<std::size_t>(id)] = static_cast<int>(id * p / n);
    }
    // before: blocks of ids, descending (the order a rank gives need not be ascending)
    const CellGraph owned { test::ownedPiece(whole, blocks, env.rank()) };
    // one view in the default memory space (a device one on GPU builds), the others on the host
    Kokkos::View<double*> scalar("scalar", owned.nCells() + 4); // + ghost rows, not moved
    auto scalarHost = Kokkos::create_mirror_view(scalar);
    Kokkos::View<int*, Kokkos::HostSpace> ints("ints", owned.nCells());
    Kokkos::View<double* [3], Kokkos::HostSpace> vector("vector", owned.nCells());
    Kokkos::View<double**, Kokkos::LayoutLeft, Kokkos::HostSpace> left("left", owned.nCells(), 3);
    std::vector<int> owners(owned.nCells());
    for (std::size_t i { 0 }; i < owned.nCells(); ++i)
    {
        const GlobalIndex id { owned.globalId(i) };
        owners[i] = ownerAfter(id, p);
        scalarHost(i) = test::valueOf(id);
        ints(i) = static_cast<int>(id);
        for (std::size_t c { 0 }; c < 3; ++c)
        {
            vector(i, c) = test::componentOf(id, c);
            left(i, c) = -test::componentOf(id, c);
        }
    }
    Kokkos::deep_copy(scalar, scalarHost);
    const Migration migration(env, owned, owners);
    migration.migrate(migration.nNewOwned() + 2, scalar, ints, vector, left);
    REQUIRE(scalar.extent(0) == migration.nNewOwned() + 2);
    REQUIRE(left.extent(1) == 3);
    scalarHost = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), scalar);
    REQUIRE(scalarHost(migration.nNewOwned() + 1) == 0.0); // ghost rows start empty

    int wrong {
        wrongRows(whole, migration.cells(), env.rank(), p, scalarHost, ints, vector, left)
    };
    mpi::allReduce(wrong, mpi::ReduceOp::Sum, env.comm());
    REQUIRE(wrong == 0);
    // no cell lost or duplicated: count, sum and xor of the ids against the formulas
    std::int64_t count { static_cast<std::int64_t>(migration.nNewOwned()) };
    std::int64_t sum { 0 };
    std::int64_t xorIds { 0 };
    std::int64_t sent { static_cast<std::int64_t>(migration.nSent()) };
    for (const GlobalIndex id : migration.cells().globalIds())
    {
        sum += id;
        xorIds ^= id;
    }
    mpi::allReduce(count, mpi::ReduceOp::Sum, env.comm());
    mpi::allReduce(sum, mpi::ReduceOp::Sum, env.comm());
    mpi::allReduce(xorIds, mpi::ReduceOp::BXor, env.comm());
    mpi::allReduce(sent, mpi::ReduceOp::Sum, env.comm());
    std::int64_t xorTruth { 0 };
    std::int64_t movedTruth { 0 };
    for (GlobalIndex id { 0 }; id < n; ++id)
    {
        xorTruth ^= id;
        movedTruth += ownerAfter(id, p) != static_cast<int>(id * p / n) ? 1 : 0;
    }
    REQUIRE(count == n);
    REQUIRE(sum == n * (n - 1) / 2);
    REQUIRE(xorIds == xorTruth);
    REQUIRE(sent == movedTruth);
}

TEST_CASE("Migration errors: a new owner out of range is an Error on every rank")
{
    const mpi::MPIEnvironment env;
    const CellGraph owned { test::roundRobinPiece(test::grid(6, 5), env.rank(), env.sizeRank()) };
    std::vector<int> owners(owned.nCells(), 0);
    if (env.rank() == env.sizeRank() - 1)
    {
        owners.back() = env.sizeRank(); // one past the last rank
        REQUIRE_THROWS_WITH(
            Migration(env, owned, owners),
            Catch::Contains("has new owner " + std::to_string(env.sizeRank())) &&
                Catch::Contains("outside [0, ")
        );
    }
    else
    {
        REQUIRE_THROWS_AS(Migration(env, owned, owners), Error);
    }
    std::vector<int> tooFew(owned.nCells() + 1, 0);
    REQUIRE_THROWS_WITH(Migration(env, owned, tooFew), Catch::Contains("new owners for"));
}

TEST_CASE("Migration::migrate errors: a field too short on one rank is an Error on every rank")
{
    // Truth: the line captured here (the Error names the caller's line, not migration.hpp),
    // every rank throws (before: the good ranks waited for rows that never came), and a
    // correct migrate afterwards carries the known function of each id.
    const mpi::MPIEnvironment env;
    const CellGraph owned { test::roundRobinPiece(test::grid(6, 5), env.rank(), env.sizeRank()) };
    std::vector<int> owners(owned.nCells());
    for (std::size_t i { 0 }; i < owned.nCells(); ++i)
    {
        owners[i] = ownerAfter(owned.globalId(i), env.sizeRank());
    }
    const Migration migration(env, owned, owners);
    const std::size_t rows { env.rank() == 0 ? owned.nCells() - 1 : owned.nCells() };
    Kokkos::View<double*, Kokkos::HostSpace> shortField("shortField", rows);
    std::source_location site;
    int line { 0 };
    try
    {
        site = std::source_location::current(); // the file; the line is the call's
        line = __LINE__ + 1;
        migration.migrate(migration.nNewOwned(), shortField);
        FAIL("migrate of a field too short on rank 0 returned");
    }
    catch (const Error& error)
    {
        CHECK(static_cast<int>(error.where().line()) == line);
        CHECK(std::string(error.where().file_name()) == site.file_name());
        if (env.rank() == 0)
        {
            CHECK_THAT(
                error.what(),
                Catch::Contains("field 'shortField' has " + std::to_string(rows) + " rows")
            );
        }
        else
        {
            CHECK_THAT(error.what(), Catch::Contains("rank 0 "));
        }
    }
    Kokkos::View<double*, Kokkos::HostSpace> field("field", owned.nCells());
    for (std::size_t i { 0 }; i < owned.nCells(); ++i)
    {
        field(i) = test::valueOf(owned.globalId(i));
    }
    migration.migrate(migration.nNewOwned(), field);
    int wrong { 0 };
    for (std::size_t i { 0 }; i < migration.nNewOwned(); ++i)
    {
        wrong += field(i) == test::valueOf(migration.cells().globalId(i)) ? 0 : 1;
    }
    mpi::allReduce(wrong, mpi::ReduceOp::Sum, env.comm());
    REQUIRE(wrong == 0);
}
