// SPDX-License-Identifier: MIT
// Bad input to the collectives, and the life of a Request.
#include "collectiveChecks.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/core/liveObjects.hpp"
#include "fieldsync/core/settings.hpp"

#include <climits>
#include <string>
#include <type_traits>

namespace fm = fieldsync::mpi;

namespace
{
/**
 * Runs @p call, which must throw a fieldsync::Error naming this file (the user's call site, not
 * the library's) and containing @p text.
 */
template<typename Call>
void expectError(Call&& call, const std::string& text)
{
    fieldsync_test::expectErrorFrom(std::forward<Call>(call), text, "collectiveErrors.cpp");
}
} // namespace

TEST_CASE("bad input throws an Error naming the call site and the value", "[collectives][errors]")
{
    const MPI_Comm comm = MPI_COMM_WORLD;
    int me { 0 };
    int size { 1 };
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &size);
    const auto P = static_cast<std::size_t>(size);
    std::vector<double> send(2 * P, 1.0);
    std::vector<double> recv(2 * P, 0.0);
    const std::string sizeText = std::to_string(size);

    // every check below is local: each rank fails on its own, no rank waits in MPI
    expectError(
        [&] { fm::allReduce(send, recv, fm::ReduceOp::Sum, MPI_COMM_NULL); }, "MPI_COMM_NULL"
    );
    expectError([&] { fm::broadcast(send, size, comm); }, "root " + sizeText + " is out of range");
    expectError(
        [&] { fm::reduce(send, recv, fm::ReduceOp::Sum, -1, comm); }, "root -1 is out of range"
    );
    expectError([&] { fm::iGather(send, recv, size + 3, comm).wait(); }, "out of range");
    std::vector<double> small(1);
    expectError(
        [&] { fm::allGather(send, small, comm); },
        "receive buffer too small: holds 1 values, needs "
    );
    expectError(
        [&] { fm::allReduce(send, small, fm::ReduceOp::Sum, comm); }, "receive buffer too small"
    );
    std::vector<int> wrongLength(P + 1, 1);
    expectError(
        [&] { fm::allGatherV(send, recv, wrongLength, comm); },
        "recvCounts has " + std::to_string(P + 1) + " entries, expected one per rank (" + sizeText +
            ")"
    );
    std::vector<int> negative(P, 1);
    negative[P - 1] = -2;
    expectError([&] { fm::allToAllV(send, negative, recv, negative, comm); }, "is negative (-2)");
    negative[0] = -7; // the first bad entry is the one named
    expectError(
        [&] { fm::iAllToAllV(send, negative, recv, negative, comm).wait(); },
        "Counts[0] is negative (-7)"
    );
    // element counts past INT_MAX: 3 doubles per Vec3, so one rank's INT_MAX / 2 values already
    // are; the counts are checked before the (small) buffers
    std::vector<fieldsync_test::Vec3> vecs(2 * P);
    std::vector<int> huge(P, 1);
    huge[P - 1] = INT_MAX / 2;
    expectError(
        [&] { fm::allGatherV(vecs, vecs, huge, comm); },
        "count of " + std::to_string(INT_MAX / 2) + " values exceeds what MPI takes"
    );
    std::vector<std::complex<double>> z(2);
    expectError(
        [&] { fm::allReduce(z, fm::ReduceOp::Min, comm); }, "ReduceOp Min is not defined on"
    );
    std::vector<fieldsync_test::Vec3> vec(1);
    expectError([&] { fm::allReduce(vec, fm::ReduceOp::BOr, comm); }, "3 x MPI_DOUBLE");
    bool flag { true };
    expectError([&] { fm::allReduce(flag, fm::ReduceOp::Sum, comm); }, "bool values");
    expectError([&] { fm::allReduce(send, fm::ReduceOp::MinLoc, comm); }, "ReduceOp MinLoc");
    if (size > 1)
    {
        std::vector<double> odd(2 * P + 1);
        std::vector<double> big(4 * P);
        expectError(
            [&] { fm::allToAll(odd, big, comm); }, "not a multiple of the " + sizeText + " ranks"
        );
    }

    Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace> matrix("matrix", 3, 4);
    auto column = Kokkos::subview(matrix, Kokkos::ALL, 1);
    expectError(
        [&] { fm::allReduce(column, fm::ReduceOp::Sum, comm); },
        "Kokkos::View 'matrix' is not contiguous"
    );
    double* nothing { nullptr };
    expectError([&] { fm::reduceAllScalar(nothing, fm::ReduceOp::SUM, comm); }, "null pointer");

    // the library is still usable after all that (nothing was left half done)
    double one { 1.0 };
    fm::allReduce(one, fm::ReduceOp::Sum, comm);
    CHECK(one == static_cast<double>(size));
}

TEST_CASE(
    "a Request is movable, not copyable, and completes exactly once", "[collectives][request]"
)
{
    static_assert(!std::is_copy_constructible_v<fm::Request>);
    static_assert(!std::is_copy_assignable_v<fm::Request>);
    static_assert(std::is_nothrow_move_constructible_v<fm::Request>);
    int me { 0 };
    int size { 1 };
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const auto staging = GENERATE(fm::Staging::Auto, fm::Staging::Always);
    const fm::CallOptions<> opts { staging };

    fm::Request empty;
    CHECK_FALSE(empty.active());
    CHECK(empty.test());
    empty.wait();

    std::vector<double> a { 1.0 + me };
    std::vector<double> b(1);
    fm::Request moved = fm::iAllReduce(a, b, fm::ReduceOp::Sum, MPI_COMM_WORLD, opts);
    fm::Request target = std::move(moved);
    CHECK_FALSE(moved.active()); // NOLINT(bugprone-use-after-move)
    CHECK(target.active());
    CHECK(
        std::string(target.where().file_name()).find("collectiveErrors.cpp") != std::string::npos
    );
    while (!target.test())
    {
    }
    CHECK_FALSE(target.active());
    CHECK(b[0] == size * (size + 1) / 2.0);

    // waitAll and waitAny over several requests, some empty
    std::vector<double> c(1);
    std::vector<double> d { static_cast<double>(me) };
    std::vector<fm::Request> requests;
    requests.push_back(fm::iAllReduce(a, c, fm::ReduceOp::Max, MPI_COMM_WORLD, opts));
    requests.emplace_back();
    requests.push_back(fm::iBroadcast(d, 0, MPI_COMM_WORLD, opts));
    fm::Request::waitAll(requests);
    for (const auto& request : requests)
    {
        CHECK_FALSE(request.active());
    }
    CHECK(c[0] == static_cast<double>(size));
    CHECK(d[0] == 0.0);

    requests.clear();
    std::vector<double> e(1);
    requests.push_back(fm::iAllReduce(a, e, fm::ReduceOp::Min, MPI_COMM_WORLD, opts));
    requests.push_back(fm::iBarrier(MPI_COMM_WORLD));
    int completed { 0 };
    for (std::size_t index = fm::Request::waitAny(requests); index < requests.size();
         index = fm::Request::waitAny(requests))
    {
        CHECK_FALSE(requests[index].active());
        ++completed;
    }
    CHECK(completed == 2);
    CHECK(e[0] == 1.0);

    // dropping an uncompleted request waits for it (and logs an error naming this line)
    std::vector<double> f(1);
    {
        auto dropped = fm::iAllReduce(a, f, fm::ReduceOp::Sum, MPI_COMM_WORLD, opts);
    }
    CHECK(f[0] == size * (size + 1) / 2.0);
    // in check mode it is also kept as an Error for the next collective: taken here
    CHECK(fieldsync::takeDeferredError().empty() != fieldsync::checkMode());
    // move-assigning over an uncompleted request completes it first
    std::vector<double> h(1);
    auto first = fm::iAllReduce(a, h, fm::ReduceOp::Sum, MPI_COMM_WORLD, opts);
    first = fm::iBarrier(MPI_COMM_WORLD);
    CHECK(h[0] == size * (size + 1) / 2.0);
    CHECK(fieldsync::takeDeferredError().empty() != fieldsync::checkMode());
    first.wait();
}

TEST_CASE(
    "the non-blocking send buffer may be reused once the call returned when staged",
    "[collectives][request]"
)
{
    // with staging, the values are copied to the host buffer the Request owns at the call:
    // changing the user's send buffer afterwards does not change the result
    int size { 1 };
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    std::vector<double> send { 2.0 };
    std::vector<double> recv(1);
    auto request =
        fm::iAllReduce(send, recv, fm::ReduceOp::Sum, MPI_COMM_WORLD, { fm::Staging::Always });
    send[0] = 1000.0;
    request.wait();
    CHECK(recv[0] == 2.0 * size);
}
