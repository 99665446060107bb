// SPDX-License-Identifier: MIT
// After set-up, a blocking collective on host memory allocates nothing on the C++ heap (MPI's
// own malloc is not counted). Results are checked against each rank's own formula too.
#include "fieldsync_test/catch.hpp"
#include "fieldsync_test/countingAllocator.hpp"

#include "fieldsync/mpi/mpiEnvironment.hpp"
#include "fieldsync/mpi/operators.hpp"

#include <Kokkos_Core.hpp>

#include <vector>

namespace fm = fieldsync::mpi;

TEST_CASE("blocking collectives on host memory do not allocate")
{
    const fm::MPIEnvironment env;
    const int n = env.sizeRank();
    const int r = env.rank();
    Kokkos::View<double*, Kokkos::HostSpace> view("view", 4);
    std::vector<int> vector(3);
    double scalar { 0.0 };
    double sumOfRanks { 0.0 };
    double broadcastValue { 0.0 };
    auto step = [&]
    {
        scalar = r + 1.0;
        fm::reduceAllScalar(&scalar, fm::ReduceOp::SUM, env.comm());
        for (std::size_t i = 0; i < view.extent(0); ++i)
        {
            view(i) = r * 10.0 + static_cast<double>(i);
        }
        fm::allReduce(view, fm::ReduceOp::Max, env.comm());
        for (auto& v : vector)
        {
            v = r;
        }
        fm::allReduce(std::span<int>(vector), fm::ReduceOp::Sum, env.comm());
        sumOfRanks = r;
        fm::allReduce(sumOfRanks, fm::ReduceOp::Sum, env.comm());
        broadcastValue = r == n - 1 ? 42.0 : 0.0;
        fm::broadcast(std::span<double>(&broadcastValue, 1), n - 1, env.comm());
        fm::barrier(env.comm());
    };
    step(); // MPI may set up its own state on first use
    const long allocations = fieldsync_test::allocationsDuring(
        [&]
        {
            for (int i = 0; i < 20; ++i)
            {
                step();
            }
        }
    );
    REQUIRE(allocations == 0);
    // and the results are right: independent closed forms
    REQUIRE(scalar == n * (n + 1) / 2.0);
    REQUIRE(view(3) == (n - 1) * 10.0 + 3.0);
    REQUIRE(vector[0] == n * (n - 1) / 2);
    REQUIRE(sumOfRanks == n * (n - 1) / 2.0);
    REQUIRE(broadcastValue == 42.0);
}
