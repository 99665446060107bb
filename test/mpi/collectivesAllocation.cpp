// SPDX-License-Identifier: MIT
// After set-up, a blocking collective on host memory allocates nothing on the C++ heap (MPI's
// own malloc is not counted); a non-blocking, V or staged call allocates exactly what it holds
// (no per-thread recycling, by design: issue #31). Results are checked against each rank's own
// formula too.
#include "fieldsync_test/catch.hpp"
#include "fieldsync_test/countingAllocator.hpp"

#include "fieldsync/mpi/mpiEnvironment.hpp"
#include "fieldsync/mpi/allToAll.hpp"
#include "fieldsync/mpi/gathers.hpp"
#include "fieldsync/mpi/operators.hpp"

#include <Kokkos_Core.hpp>

#include <span>
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

TEST_CASE("non-blocking collectives on spans and views, and staged blocking ones, allocate "
          "only what they hold")
{
    const fm::MPIEnvironment env;
    const int n = env.sizeRank();
    const int r = env.rank();
    const auto un = static_cast<std::size_t>(n);
    // rank q sends q + p + 1 values to rank p, the k-th of them 1000 q + 100 p + k; in the
    // allGatherV rank q gives q + 1 values, the k-th 10 q + k
    std::vector<int> counts(un);
    std::vector<int> gatherCounts(un);
    for (int p = 0; p < n; ++p)
    {
        counts[static_cast<std::size_t>(p)] = r + p + 1;
        gatherCounts[static_cast<std::size_t>(p)] = p + 1;
    }
    std::vector<double> send;
    for (int p = 0; p < n; ++p)
    {
        for (int k = 0; k < r + p + 1; ++k)
        {
            send.push_back(1000.0 * r + 100.0 * p + k);
        }
    }
    std::vector<double> recv(send.size(), -1.0); // the counts are symmetric in r and p
    std::vector<double> mine(static_cast<std::size_t>(r + 1));
    for (int k = 0; k <= r; ++k)
    {
        mine[static_cast<std::size_t>(k)] = 10.0 * r + k;
    }
    std::vector<double> gathered(un * (un + 1) / 2, -1.0);
    Kokkos::View<double*, Kokkos::HostSpace> view("view", 3);
    Kokkos::View<double*, Kokkos::HostSpace> staged("staged", 2);
    fm::CallOptions<> staging {};
    staging.staging = fm::Staging::Always;
    // a device form that names its instance and one dependency
    Kokkos::View<double*, Kokkos::HostSpace> onInstance("onInstance", 2);
    const Kokkos::DefaultHostExecutionSpace exec;
    const auto device = fm::withExecutionSpace(exec, { exec });
    auto step = [&]
    {
        // a view's non-blocking call keeps it alive (a counted reference) until completion
        for (std::size_t i = 0; i < view.extent(0); ++i)
        {
            view(i) = r + 1.0 + static_cast<double>(i);
        }
        auto v = fm::iAllReduce(view, fm::ReduceOp::Sum, env.comm());
        v.wait();
        // a staged call copies through host staging bytes, by its access object
        staged(0) = r;
        staged(1) = -r;
        fm::allReduce(staged, fm::ReduceOp::Max, env.comm(), staging);
        auto a = fm::iAllToAllV(
            std::span<const double>(send), counts, std::span<double>(recv), counts, env.comm()
        );
        a.wait();
        auto g = fm::iAllGatherV(
            std::span<const double>(mine), std::span<double>(gathered), gatherCounts, env.comm()
        );
        g.wait();
        // its access object names the instance (Request::readyOn); the dependencies are read
        // where the options hold them, not copied
        onInstance(0) = r;
        onInstance(1) = 1.0;
        auto d = fm::iAllReduce(onInstance, fm::ReduceOp::Sum, env.comm(), device);
        d.wait();
    };
    step(); // MPI and the staging pool set up their own state on first use
    const long allocations = fieldsync_test::allocationsDuring(
        [&]
        {
            for (int i = 0; i < 20; ++i)
            {
                step();
            }
        }
    );
    // Each round allocates what its calls hold, nothing cached from one call to the next (no
    // recycling by design, doc/notes/performance.md "micro-mechanisms removed"): iAllReduce of a
    // view, its state and the copy of the view kept alive (2); the staged allReduce, its access
    // object (1; the staging bytes come from the pool); iAllToAllV, its state and its four count
    // and displacement arrays (5); iAllGatherV, its state and its receive counts and
    // displacements (3); the device form's iAllReduce, its state, the copy of the view and its
    // access object (3).
    constexpr long perRound { 2 + 1 + 5 + 3 + 3 };
    CHECK(allocations == 20 * perRound);
    // the results against the closed forms
    for (std::size_t i = 0; i < view.extent(0); ++i)
    {
        REQUIRE(view(i) == n * (n + 1) / 2.0 + n * static_cast<double>(i));
    }
    REQUIRE(onInstance(0) == n * (n - 1) / 2.0);
    REQUIRE(onInstance(1) == static_cast<double>(n));
    REQUIRE(staged(0) == n - 1.0);
    REQUIRE(staged(1) == 0.0);
    std::size_t at { 0 };
    for (int q = 0; q < n; ++q)
    {
        for (int k = 0; k < q + r + 1; ++k)
        {
            REQUIRE(recv[at++] == 1000.0 * q + 100.0 * r + k);
        }
    }
    at = 0;
    for (int q = 0; q < n; ++q)
    {
        for (int k = 0; k <= q; ++k)
        {
            REQUIRE(gathered[at++] == 10.0 * q + k);
        }
    }
}
