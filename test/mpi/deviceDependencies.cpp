// SPDX-License-Identifier: MIT
// Device forms of the collectives: a kernel writes the send buffer on an instance the call
// depends on (CallOptions::dependsOn, no fence by the test), and a kernel on the instance the
// Request names (Request::readyOn) reads the results; each result against a closed form of the
// rank and the size. The doc/collectives.md examples are regions here.
#include "fieldsync_test/catch.hpp"
#include "fieldsync_test/errorText.hpp"

#include "fieldsync/mpi/collectives.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"

#include <Kokkos_Core.hpp>

#include <string>
#include <vector>

namespace fm = fieldsync::mpi;

namespace
{
using Exec = Kokkos::DefaultExecutionSpace;
using Values = Kokkos::View<double*, Exec::memory_space>;

/** @brief 0 + 1 + ... + (size - 1). */
double sumOfRanks(int size)
{
    return size * (size - 1) / 2.0;
}

/** @brief Writes a * i + b to @p values(i) on @p exec, not fenced. */
void fill(const Exec& exec, const Values& values, double a, double b)
{
    Kokkos::parallel_for(
        "fill",
        Kokkos::RangePolicy<Exec>(exec, 0, values.extent(0)),
        KOKKOS_LAMBDA(const int i) { values(i) = a * i + b; }
    );
}

/**
 * @brief The values of @p values that differ from a * (i % period) + b + step * (i / period),
 * counted by a kernel enqueued on @p exec (ordered after the instance's earlier work).
 */
int mismatches(
    const Exec& exec,
    const Values& values,
    double a,
    double b,
    int period = 1 << 30,
    double step = 0
)
{
    Kokkos::View<int, Exec::memory_space> count("mismatches");
    Kokkos::parallel_reduce(
        "check",
        Kokkos::RangePolicy<Exec>(exec, 0, values.extent(0)),
        KOKKOS_LAMBDA(const int i, int& wrong) {
            const double expected = a * (i % period) + b + step * (i / period);
            wrong += values(i) == expected ? 0 : 1;
        },
        count
    );
    exec.fence(); // the test reads the count on the host
    int found { -1 };
    Kokkos::deep_copy(found, count);
    return found;
}

/** @brief Whether withExecutionSpace(exec, {dependency}) compiles for a @p Dependency. */
template<typename Dependency>
concept AcceptedDependency = requires(const Exec& exec, const Dependency& dependency)
{
    fm::withExecutionSpace(exec, { dependency });
};

// a dependency is an instance of the call's own execution space type, nothing else
static_assert(AcceptedDependency<Exec>);
static_assert(!AcceptedDependency<Exec::memory_space>);
static_assert(!AcceptedDependency<fm::detail::ViewExecutionSpace>);
static_assert(!AcceptedDependency<int>);
} // namespace

TEST_CASE("device forms wait for the instances they depend on", "[collectives][device]")
{
    const fm::MPIEnvironment env;
    const MPI_Comm comm = env.comm();
    const int rank = env.rank();
    const int size = env.sizeRank();
    const auto staging = GENERATE(fm::Staging::Auto, fm::Staging::Always);
    const int n { 5 };

    SECTION("allReduce, blocking")
    {
        // [dependsOn]
        Exec exec;   // runs the collective (fences, staging copies)
        Exec writer; // wrote the send buffer: the call waits for it, nothing else is fenced
        Values send("send", n);
        Values sums("sums", n);
        fill(writer, send, 1.0, 10.0 * rank); // not fenced: the call depends on writer
        fm::allReduce(
            send, sums, fm::ReduceOp::Sum, comm, fm::withExecutionSpace(exec, { writer }, staging)
        );
        // [dependsOn]
        CHECK(mismatches(exec, sums, size, 10.0 * sumOfRanks(size)) == 0);
        // the check itself tells a wrong closed form: every value differs from it
        CHECK(mismatches(exec, sums, size, 10.0 * sumOfRanks(size) + 1.0) == n);
    }
    SECTION("broadcast, blocking, dependencies given as a field")
    {
        Exec exec;
        Exec writer;
        Values values("values", n);
        const int root { size - 1 };
        fill(writer, values, 2.0, 100.0 * rank);
        fm::broadcast(
            values,
            root,
            comm,
            fm::CallOptions<Exec> { .staging = staging, .exec = exec, .dependsOn = { writer } }
        );
        CHECK(mismatches(exec, values, 2.0, 100.0 * root) == 0);
    }
}

TEST_CASE(
    "a device form's Request names the instance its results are ready on", "[collectives][device]"
)
{
    const fm::MPIEnvironment env;
    const MPI_Comm comm = env.comm();
    const int rank = env.rank();
    const int size = env.sizeRank();
    const auto staging = GENERATE(fm::Staging::Auto, fm::Staging::Always);
    const int n { 4 };

    SECTION("iAllReduce, completed by wait")
    {
        // [readyOn]
        Exec exec;
        Exec writer;
        Values send("send", n);
        Values sums("sums", n);
        fill(writer, send, 1.0, rank);
        fm::Request request = fm::iAllReduce(
            send, sums, fm::ReduceOp::Sum, comm, fm::withExecutionSpace(exec, { writer }, staging)
        );
        // ... work that does not touch send or sums ...
        request.wait(); // MPI completes on the host; a staged result's copy back is enqueued
        const Exec ready { request.readyOn<Exec>() };
        // kernels enqueued on ready from here on see the sums: no fence in user code
        // [readyOn]
        CHECK(mismatches(ready, sums, size, sumOfRanks(size)) == 0);
    }
    SECTION("iBroadcast, completed by test")
    {
        Exec exec;
        Exec writer;
        Values values("values", n);
        const int root { size / 2 };
        fill(writer, values, 3.0, 7.0 * rank);
        fm::Request request =
            fm::iBroadcast(values, root, comm, fm::withExecutionSpace(exec, { writer }, staging));
        while (!request.test())
        {
        }
        CHECK(mismatches(request.readyOn<Exec>(), values, 3.0, 7.0 * root) == 0);
    }
    SECTION("iAllGather, readyOn before completion names the same instance")
    {
        Exec exec;
        Exec writer;
        Values mine("mine", n);
        Values all("all", static_cast<std::size_t>(n) * size);
        // rank r contributes i + 10 r: all(r n + i) = i + 10 r
        fill(writer, mine, 1.0, 10.0 * rank);
        fm::Request request =
            fm::iAllGather(mine, all, comm, fm::withExecutionSpace(exec, { writer }, staging));
        const Exec ready { request.readyOn<Exec>() };
        fm::Request::waitAll(std::span(&request, 1));
        CHECK(mismatches(ready, all, 1.0, 0.0, n, 10.0) == 0);
    }
    SECTION("iReduce in place, two dependencies")
    {
        Exec exec;
        Exec first;
        Exec second;
        Values values("values", n);
        Values other("other", n);
        fill(first, values, 1.0, rank);
        fill(second, other, 0.0, 0.0); // unrelated work the call also waits for
        fm::Request request = fm::iReduce(
            values,
            fm::ReduceOp::Sum,
            0,
            comm,
            fm::withExecutionSpace(exec, { first, second }, staging)
        );
        request.wait();
        if (rank == 0)
        {
            CHECK(mismatches(request.readyOn<Exec>(), values, size, sumOfRanks(size)) == 0);
        }
    }
}

TEST_CASE("readyOn of a call given no instance of that type is an Error", "[collectives][device]")
{
    const fm::MPIEnvironment env;
    std::vector<double> values(2, 1.0);
    fm::Request hostForm = fm::iAllReduce(values, fm::ReduceOp::Sum, env.comm());
    const auto host = fieldsync::test::errorText([&] { (void)hostForm.readyOn<Exec>(); });
    hostForm.wait();
    REQUIRE(host.has_value());
    CHECK(host->find("deviceDependencies.cpp") != std::string::npos);
    CHECK(host->find("no execution space instance") != std::string::npos);

    fm::Request deviceForm =
        fm::iAllReduce(values, fm::ReduceOp::Sum, env.comm(), fm::withExecutionSpace(Exec {}));
    deviceForm.wait();
    CHECK_NOTHROW((void)deviceForm.readyOn<Exec>());
    const auto otherType = fieldsync::test::errorText([&] { (void)deviceForm.readyOn<int>(); });
    REQUIRE(otherType.has_value());
    CHECK(otherType->find("no execution space instance") != std::string::npos);
}
