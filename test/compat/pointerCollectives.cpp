// SPDX-License-Identifier: MIT
// The collectives on a host pointer and an int count (compat/fieldsync/mpi/pointerCollectives.hpp,
// through compat.hpp), blocking and non-blocking, against closed forms each rank computes from
// its rank: rank r contributes f(r, i) = 10 r + i + 1, and sends g(r, d, i) = 100 r + 10 d + i to
// rank d. Most of these forms are deprecated: this file is compiled with
// -Wno-deprecated-declarations (every deprecated use here warns without it).
#include "fieldsync_test/catch.hpp"
#include "fieldsync_test/errorText.hpp"

#include "fieldsync/compat.hpp"
#include "fieldsync/core/error.hpp"

#include <algorithm>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include <mpi.h>

namespace fm = fieldsync::mpi;

namespace
{

/** What rank @p r contributes at position @p i. */
double f(int r, std::size_t i)
{
    return r * 10.0 + static_cast<double>(i) + 1.0;
}

/** The sum of f(r, i) over ranks first..last, by a loop over the formula. */
double sumF(int first, int last, std::size_t i)
{
    double total { 0.0 };
    for (int r = first; r <= last; ++r)
    {
        total += f(r, i);
    }
    return total;
}

/** What rank @p src sends to rank @p dst at position @p i (all-to-all). */
double g(int src, int dst, std::size_t i)
{
    return src * 100.0 + dst * 10.0 + static_cast<double>(i);
}

/** Runs @p call, which must throw a fieldsync::Error naming this file and containing @p text. */
void expectError(const std::function<void()>& call, const std::string& text)
{
    const auto what = fieldsync::test::errorText(call);
    INFO(what.value_or("no fieldsync::Error thrown"));
    REQUIRE(what.has_value());
    CHECK(what->find(text) != std::string::npos);
    CHECK(what->find("pointerCollectives.cpp:") != std::string::npos); // the caller's line
}

/** Waits for @p request (the non-blocking forms). */
void complete(fm::Request request)
{
    request.wait();
}

} // namespace

TEST_CASE("pointer + count forms of every collective", "[compat][collectives][pointer]")
{
    const MPI_Comm comm = MPI_COMM_WORLD;
    int me { 0 };
    int size { 1 };
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &size);
    const auto P = static_cast<std::size_t>(size);
    const auto ume = static_cast<std::size_t>(me);
    const bool blocking = GENERATE(true, false);
    const auto staging = GENERATE(fm::Staging::Auto, fm::Staging::Always);
    const fm::CallOptions<> opts { staging };
    const int n { 2 };
    const auto un = static_cast<std::size_t>(n);
    std::vector<double> send(un * P);
    std::vector<double> recv(un * P, -1.0);
    for (std::size_t k = 0; k < un * P; ++k)
    {
        send[k] = f(me, k);
    }
    const std::vector<int> counts(P, n);
    const auto reset = [&]
    {
        std::fill(recv.begin(), recv.end(), -1.0);
    };

    // the specification's forms
    blocking ? fm::allReduce(send.data(), recv.data(), n, fm::ReduceOp::Sum, comm, opts)
             : complete(fm::iAllReduce(send.data(), recv.data(), n, fm::ReduceOp::Sum, comm, opts));
    CHECK(recv[1] == sumF(0, size - 1, 1));

    reset();
    double* atRoot { me == 0 ? recv.data() : nullptr }; // only the root's is read
    blocking ? fm::reduce(send.data(), atRoot, n, fm::ReduceOp::Sum, 0, comm, opts)
             : complete(fm::iReduce(send.data(), atRoot, n, fm::ReduceOp::Sum, 0, comm, opts));
    CHECK((me != 0 || recv[0] == sumF(0, size - 1, 0)));

    reset();
    blocking
        ? fm::reduceScatter(send.data(), recv.data(), n, fm::ReduceOp::Sum, comm, opts)
        : complete(fm::iReduceScatter(send.data(), recv.data(), n, fm::ReduceOp::Sum, comm, opts));
    CHECK(recv[1] == sumF(0, size - 1, ume * un + 1));

    reset();
    blocking ? fm::allGatherV(send.data(), n, recv.data(), counts, comm, opts)
             : complete(fm::iAllGatherV(send.data(), n, recv.data(), counts, comm, opts));
    CHECK(recv[un * (P - 1) + 1] == f(size - 1, 1));

    std::vector<double> a2a(un * P);
    for (std::size_t r = 0; r < P; ++r)
    {
        for (std::size_t i = 0; i < un; ++i)
        {
            a2a[r * un + i] = g(me, static_cast<int>(r), i);
        }
    }
    reset();
    blocking ? fm::allToAll(a2a.data(), recv.data(), n, comm, opts)
             : complete(fm::iAllToAll(a2a.data(), recv.data(), n, comm, opts));
    CHECK(recv[un * (P - 1) + 1] == g(size - 1, me, 1));
    reset();
    blocking ? fm::allToAllV(a2a.data(), counts, recv.data(), counts, comm, opts)
             : complete(fm::iAllToAllV(a2a.data(), counts, recv.data(), counts, comm, opts));
    CHECK(recv[1] == g(0, me, 1));

    std::vector<double> io(send);
    blocking ? fm::broadcast(io.data(), n, size - 1, comm, opts)
             : complete(fm::iBroadcast(io.data(), n, size - 1, comm, opts));
    CHECK(io[1] == f(size - 1, 1));

    // the deprecated forms
    io = send;
    blocking ? fm::allReduce(io.data(), n, fm::ReduceOp::Sum, comm, opts)
             : complete(fm::iAllReduce(io.data(), n, fm::ReduceOp::Sum, comm, opts));
    CHECK(io[1] == sumF(0, size - 1, 1));
    io = send;
    blocking ? fm::reduce(io.data(), n, fm::ReduceOp::Sum, 0, comm, opts)
             : complete(fm::iReduce(io.data(), n, fm::ReduceOp::Sum, 0, comm, opts));
    CHECK((me != 0 || io[0] == sumF(0, size - 1, 0)));

    reset();
    blocking
        ? fm::reduceScatter(send.data(), recv.data(), counts, fm::ReduceOp::Sum, comm, opts)
        : complete(
              fm::iReduceScatter(send.data(), recv.data(), counts, fm::ReduceOp::Sum, comm, opts)
          );
    CHECK(recv[1] == sumF(0, size - 1, ume * un + 1));

    reset();
    blocking ? fm::allGather(send.data(), n, recv.data(), comm, opts)
             : complete(fm::iAllGather(send.data(), n, recv.data(), comm, opts));
    CHECK(recv[un * (P - 1) + 1] == f(size - 1, 1));

    reset();
    blocking ? fm::gather(send.data(), n, atRoot, 0, comm, opts)
             : complete(fm::iGather(send.data(), n, atRoot, 0, comm, opts));
    CHECK((me != 0 || recv[un * (P - 1)] == f(size - 1, 0)));
    reset();
    blocking ? fm::gatherV(send.data(), n, recv.data(), counts, 0, comm, opts)
             : complete(fm::iGatherV(send.data(), n, recv.data(), counts, 0, comm, opts));
    CHECK((me != 0 || recv[un * (P - 1)] == f(size - 1, 0)));

    // root 0 scatters its send: rank r gets f(0, r n + i)
    const double* fromRoot { me == 0 ? send.data() : nullptr };
    reset();
    blocking ? fm::scatter(fromRoot, recv.data(), n, 0, comm, opts)
             : complete(fm::iScatter(fromRoot, recv.data(), n, 0, comm, opts));
    CHECK(recv[1] == f(0, ume * un + 1));
    reset();
    blocking ? fm::scatterV(send.data(), counts, recv.data(), n, 0, comm, opts)
             : complete(fm::iScatterV(send.data(), counts, recv.data(), n, 0, comm, opts));
    CHECK(recv[1] == f(0, ume * un + 1));

    reset();
    blocking ? fm::scan(send.data(), recv.data(), n, fm::ReduceOp::Sum, comm, opts)
             : complete(fm::iScan(send.data(), recv.data(), n, fm::ReduceOp::Sum, comm, opts));
    CHECK(recv[1] == sumF(0, me, 1));
    reset();
    blocking ? fm::exScan(send.data(), recv.data(), n, fm::ReduceOp::Sum, comm, opts)
             : complete(fm::iExScan(send.data(), recv.data(), n, fm::ReduceOp::Sum, comm, opts));
    CHECK((me == 0 || recv[1] == sumF(0, me - 1, 1)));
}

TEST_CASE("a negative count is an Error naming the caller's line", "[compat][collectives][errors]")
{
    const MPI_Comm comm = MPI_COMM_WORLD;
    int size { 1 };
    MPI_Comm_size(comm, &size);
    std::vector<double> send(2 * static_cast<std::size_t>(size), 1.0);
    std::vector<double> recv(send.size(), 0.0);
    // every check is local: each rank fails on its own, no rank waits in MPI
    expectError(
        [&] { fm::allReduce(send.data(), recv.data(), -4, fm::ReduceOp::Sum, comm); },
        "allReduce: negative count -4"
    );
    expectError([&] { fm::scatter(send.data(), recv.data(), -1, 0, comm); }, "negative count -1");
    expectError(
        [&] { fm::iAllToAll(send.data(), recv.data(), -3, comm).wait(); },
        "iAllToAll: negative count -3"
    );
    expectError([&] { fm::allToAll(send.data(), recv.data(), 1, MPI_COMM_NULL); }, "MPI_COMM_NULL");
}
