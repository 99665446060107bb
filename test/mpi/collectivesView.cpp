// SPDX-License-Identifier: MIT
// Every collective on host Kokkos::View buffers, blocking and not, direct and staged.
#include "collectiveChecks.hpp"

using fieldsync_test::Vec3;

namespace
{
/** @brief This rank and the ranks of MPI_COMM_WORLD. */
std::pair<int, int> worldRankAndSize()
{
    int me { 0 };
    int size { 1 };
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    return { me, size };
}
} // namespace

TEMPLATE_TEST_CASE(
    "every collective on Kokkos views matches the independent formula",
    "[collectives][view]",
    int,
    double,
    std::complex<double>,
    (std::array<double, 3>),
    Vec3
)
{
    const bool blocking = GENERATE(true, false);
    const auto staging = GENERATE(fieldsync::mpi::Staging::Auto, fieldsync::mpi::Staging::Always);
    fieldsync_test::checkAllCollectives<TestType, fieldsync_test::ViewForm>({ blocking, staging });
}

TEST_CASE(
    "collectives on a rank-2 view and with an explicit execution space", "[collectives][view]"
)
{
    namespace fm = fieldsync::mpi;
    const int me { worldRankAndSize().first };
    const int size { worldRankAndSize().second };
    const auto staging = GENERATE(fm::Staging::Auto, fm::Staging::Always);
    Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace> field("field", 4, 2);
    Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace> result("result", 4, 2);
    const Kokkos::DefaultHostExecutionSpace exec;
    Kokkos::parallel_for(
        "fill",
        Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(exec, 0, 4),
        KOKKOS_LAMBDA(const int i) {
            field(i, 0) = me + i;
            field(i, 1) = 2.0 * me;
        }
    );
    // the fence of exec is the library's job
    fm::allReduce(
        field, result, fm::ReduceOp::Sum, MPI_COMM_WORLD, fm::withExecutionSpace(exec, staging)
    );
    const double rankSum = size * (size - 1) / 2.0;
    for (int i = 0; i < 4; ++i)
    {
        CHECK(result(i, 0) == rankSum + size * i);
        CHECK(result(i, 1) == 2.0 * rankSum);
    }
    auto request = fm::iBroadcast(field, 0, MPI_COMM_WORLD, fm::withExecutionSpace(exec, staging));
    request.wait();
    CHECK(field(3, 0) == 3.0);
    CHECK(field(3, 1) == 0.0);
}

TEST_CASE(
    "a non-blocking call keeps its views alive until completion, with one reference each",
    "[collectives][view][lifetime]"
)
{
    namespace fm = fieldsync::mpi;
    const int me { worldRankAndSize().first };
    const int size { worldRankAndSize().second };
    const auto staging = GENERATE(fm::Staging::Auto, fm::Staging::Always);
    Kokkos::View<double*, Kokkos::HostSpace> send("send", 3);
    Kokkos::View<double*, Kokkos::HostSpace> result("result", 3);
    for (int i = 0; i < 3; ++i)
    {
        send(i) = 10.0 * me + i;
    }
    auto request = fm::iAllReduce(
        send, result, fm::ReduceOp::Sum, MPI_COMM_WORLD, fm::CallOptions<> { .staging = staging }
    );
    // in flight: the caller's handle and the call's one reference to each view
    CHECK(send.use_count() == 2);
    CHECK(result.use_count() == 2);
    Kokkos::View<double*, Kokkos::HostSpace> read = result; // to read the sums after the wait
    send = {};   // the caller lets its send view go: the call's reference keeps the memory
    result = {}; // likewise the result (the sanitizers would report a write to freed memory)
    CHECK(read.use_count() == 2);
    request.wait();
    CHECK(read.use_count() == 1); // completion let the call's reference go
    const double rankSum = size * (size - 1) / 2.0;
    for (int i = 0; i < 3; ++i)
    {
        CHECK(read(i) == 10.0 * rankSum + size * i);
    }
}

TEST_CASE(
    "a non-blocking call on unmanaged views (nothing to keep alive) gives the sums",
    "[collectives][view][lifetime]"
)
{
    namespace fm = fieldsync::mpi;
    const int me { worldRankAndSize().first };
    const int size { worldRankAndSize().second };
    using Unmanaged =
        Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
    std::vector<double> in { 1.0 * me, 2.0 * me, 3.0 };
    std::vector<double> out(3, -1.0);
    const Unmanaged send(in.data(), in.size());
    const Unmanaged result(out.data(), out.size());
    auto request = fm::iAllReduce(send, result, fm::ReduceOp::Sum, MPI_COMM_WORLD);
    request.wait();
    const double rankSum = size * (size - 1) / 2.0;
    CHECK(out == std::vector<double> { rankSum, 2.0 * rankSum, 3.0 * size });
}
