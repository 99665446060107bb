// SPDX-License-Identifier: MIT
// NeoN's later names on its distributed branch while MPI runs: mpi::Init and mpi::Environment,
// isInitialized(), and MPIInit by value (MPIInit(0, nullptr) compiles).
#include "fieldsync_test/catch.hpp"

#include "fieldsync/core/mpi/environment.hpp"

#include <cstddef>
#include <type_traits>

using namespace fieldsync;
using namespace fieldsync::mpi;

static_assert(std::is_same_v<Init, MPIInit>);
static_assert(std::is_constructible_v<MPIInit, int, std::nullptr_t>); // MPIInit(0, nullptr)
static_assert(std::is_constructible_v<Init, int, char**>);
static_assert(std::is_convertible_v<Environment, MPIEnvironment>);

TEST_CASE("mpi::Environment while MPI runs is MPI_COMM_WORLD", "[compat][environment]")
{
    Environment mpiEnviron;
    int rank { -1 };
    int size { -1 };
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(mpiEnviron.isInitialized());
    CHECK(mpiEnviron.rank() == rank);
    CHECK(mpiEnviron.sizeRank() == size);
    CHECK(mpiEnviron.comm() == MPI_COMM_WORLD);
    const MPIEnvironment seed;
    CHECK(seed.isInitialized());
}

TEST_CASE("a second MPIInit by value neither starts nor ends MPI or Kokkos", "[compat][init]")
{
    {
        const Init again(0, nullptr);
        CHECK_FALSE(again.ownsMpi());
        CHECK_FALSE(again.ownsKokkos());
    }
    int finalised { 1 };
    MPI_Finalized(&finalised);
    CHECK(finalised == 0);
    CHECK(Kokkos::is_initialized());
}
