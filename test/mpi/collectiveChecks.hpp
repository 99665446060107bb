// SPDX-License-Identifier: MIT
// Checks of every collective against values each rank computes on its own: rank r contributes
// f(r, i), and the expected result is a formula in r and i (sums over ranks, blocks by rank).
#pragma once

#include "fieldsync_test/catch.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/mpi/operators.hpp"

#include <Kokkos_Core.hpp>

#include <array>
#include <complex>
#include <cstddef>
#include <numeric>
#include <string>
#include <vector>

namespace fieldsync_test
{

/** @brief A three-component aggregate registered with FIELDSYNC_REGISTER_AGGREGATE. */
struct Vec3
{
    double x; /**< first */
    double y; /**< second */
    double z; /**< third */
    bool operator==(const Vec3&) const = default;
};

} // namespace fieldsync_test

FIELDSYNC_REGISTER_AGGREGATE(fieldsync_test::Vec3, double, 3)

namespace fieldsync_test
{

namespace fm = fieldsync::mpi;

/** @brief A value of T built linearly from two doubles, so sums of values are values of sums. */
template<typename T>
T make(double a, double b)
{
    if constexpr (std::is_same_v<T, std::complex<double>>)
    {
        return T { a, b };
    }
    else if constexpr (std::is_same_v<T, std::array<double, 3>>)
    {
        return T { a, b, a + b };
    }
    else if constexpr (std::is_same_v<T, Vec3>)
    {
        return T { a, b, 2 * a - b };
    }
    else
    {
        return static_cast<T>(a);
    }
}

/** @brief What rank @p r contributes at position @p i. */
template<typename T>
T f(int r, std::size_t i)
{
    return make<T>(r * 10.0 + static_cast<double>(i) + 1.0, static_cast<double>(i) - r);
}

/** @brief The sum of f(r, i) over ranks first..last (inclusive), computed from the formula. */
template<typename T>
T sumF(int first, int last, std::size_t i)
{
    double a { 0.0 };
    double b { 0.0 };
    for (int r = first; r <= last; ++r)
    {
        a += r * 10.0 + static_cast<double>(i) + 1.0;
        b += static_cast<double>(i) - r;
    }
    return make<T>(a, b);
}

/** @brief What rank @p src sends to rank @p dst at position @p i (all-to-all). */
template<typename T>
T g(int src, int dst, std::size_t i)
{
    return make<T>(src * 100.0 + dst * 10.0 + static_cast<double>(i), src - dst);
}

/**
 * @brief Runs @p call, which must throw a fieldsync::Error on this rank whose text contains
 * @p text and whose call site is in the test file @p file (the user's line, not the library's).
 */
template<typename Call>
void expectErrorFrom(Call&& call, const std::string& text, const char* file)
{
    try
    {
        call();
        FAIL("no fieldsync::Error thrown; expected one containing: " << text);
    }
    catch (const fieldsync::Error& error)
    {
        const std::string what = error.what();
        INFO(what);
        CHECK(what.find(text) != std::string::npos);
        CHECK(std::string(error.where().file_name()).find(file) != std::string::npos);
        int me { 0 };
        MPI_Comm_rank(MPI_COMM_WORLD, &me);
        CHECK(error.rank() == me);
    }
}

/** @brief A value no collective produces. */
template<typename T>
T sentinel()
{
    return make<T>(-7.0, -7.0);
}

/** @brief Buffers as std::vector. */
template<typename T>
struct VectorForm
{
    using Buffer = std::vector<T>;
    static Buffer make(std::size_t n) { return Buffer(n, sentinel<T>()); }
    static T& at(Buffer& b, std::size_t i) { return b[i]; }
};

/** @brief Buffers as host Kokkos::View. */
template<typename T>
struct ViewForm
{
    using Buffer = Kokkos::View<T*, Kokkos::HostSpace>;
    static Buffer make(std::size_t n)
    {
        Buffer b("fieldsync_test::buffer", n);
        Kokkos::deep_copy(b, sentinel<T>());
        return b;
    }
    static T& at(const Buffer& b, std::size_t i) { return b(i); }
};

/** @brief Blocking or not, and how memory reaches MPI. */
struct Mode
{
    bool blocking { true };                    /**< blocking call or i-variant + wait */
    fm::Staging staging { fm::Staging::Auto }; /**< Auto or Always */
};

/** @brief Packed displacements of per-rank counts. */
inline std::vector<std::size_t> displacements(const std::vector<int>& counts)
{
    std::vector<std::size_t> d(counts.size() + 1, 0);
    for (std::size_t r = 0; r < counts.size(); ++r)
    {
        d[r + 1] = d[r] + static_cast<std::size_t>(counts[r]);
    }
    return d;
}

// Calls the blocking form or the non-blocking one followed by wait().
#define FS_CALL(mode, blockingName, nonBlockingName, ...)                                          \
    do                                                                                             \
    {                                                                                              \
        if ((mode).blocking)                                                                       \
        {                                                                                          \
            fieldsync::mpi::blockingName(__VA_ARGS__);                                             \
        }                                                                                          \
        else                                                                                       \
        {                                                                                          \
            auto request = fieldsync::mpi::nonBlockingName(__VA_ARGS__);                           \
            REQUIRE(request.active());                                                             \
            request.wait();                                                                        \
            REQUIRE_FALSE(request.active());                                                       \
        }                                                                                          \
    } while (false)

/**
 * @brief Runs every collective (plain and in place) with buffers of Form and checks each result
 * against the formulas above.
 */
template<typename T, template<typename> class Form>
void checkAllCollectives(const Mode mode)
{
    using F = Form<T>;
    const MPI_Comm comm = MPI_COMM_WORLD;
    int me { 0 };
    int size { 1 };
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &size);
    const auto P = static_cast<std::size_t>(size);
    const auto ume = static_cast<std::size_t>(me);
    const std::size_t n { 3 };
    const fm::CallOptions<> opts { mode.staging };
    const auto sum = fm::ReduceOp::Sum;

    // per-rank counts r + 1 for the V operations
    std::vector<int> counts(P);
    std::iota(counts.begin(), counts.end(), 1);
    const auto displ = displacements(counts);
    const std::size_t total = displ.back();

    SECTION("allReduce")
    {
        auto send = F::make(n);
        auto recv = F::make(n);
        for (std::size_t i = 0; i < n; ++i)
        {
            F::at(send, i) = f<T>(me, i);
        }
        FS_CALL(mode, allReduce, iAllReduce, send, recv, sum, comm, opts);
        auto io = F::make(n);
        for (std::size_t i = 0; i < n; ++i)
        {
            CHECK(F::at(recv, i) == sumF<T>(0, size - 1, i));
            CHECK(F::at(send, i) == f<T>(me, i));
            F::at(io, i) = f<T>(me, i);
        }
        FS_CALL(mode, allReduce, iAllReduce, io, sum, comm, opts); // in place: one buffer
        for (std::size_t i = 0; i < n; ++i)
        {
            CHECK(F::at(io, i) == sumF<T>(0, size - 1, i));
        }
    }
    SECTION("reduce")
    {
        const int root = size - 1;
        auto send = F::make(n);
        auto recv = F::make(me == root ? n : 0);
        auto io = F::make(n);
        for (std::size_t i = 0; i < n; ++i)
        {
            F::at(send, i) = f<T>(me, i);
            F::at(io, i) = f<T>(me, i);
        }
        FS_CALL(mode, reduce, iReduce, send, recv, sum, root, comm, opts);
        FS_CALL(mode, reduce, iReduce, io, sum, root, comm, opts);
        for (std::size_t i = 0; i < n; ++i)
        {
            if (me == root)
            {
                CHECK(F::at(recv, i) == sumF<T>(0, size - 1, i));
                CHECK(F::at(io, i) == sumF<T>(0, size - 1, i));
            }
            else
            {
                CHECK(F::at(io, i) == f<T>(me, i));
            }
        }
    }
    SECTION("broadcast")
    {
        const int root = size / 2;
        auto buf = F::make(n);
        for (std::size_t i = 0; i < n; ++i)
        {
            F::at(buf, i) = me == root ? f<T>(root, i) : sentinel<T>();
        }
        FS_CALL(mode, broadcast, iBroadcast, buf, root, comm, opts);
        for (std::size_t i = 0; i < n; ++i)
        {
            CHECK(F::at(buf, i) == f<T>(root, i));
        }
    }
    SECTION("allGather and allGatherV")
    {
        auto send = F::make(n);
        auto recv = F::make(n * P);
        auto io = F::make(n * P);
        for (std::size_t i = 0; i < n; ++i)
        {
            F::at(send, i) = f<T>(me, i);
            F::at(io, ume * n + i) = f<T>(me, i);
        }
        FS_CALL(mode, allGather, iAllGather, send, recv, comm, opts);
        FS_CALL(mode, allGather, iAllGather, fm::inPlace, io, comm, opts);
        for (std::size_t r = 0; r < P; ++r)
        {
            for (std::size_t i = 0; i < n; ++i)
            {
                CHECK(F::at(recv, r * n + i) == f<T>(static_cast<int>(r), i));
                CHECK(F::at(io, r * n + i) == f<T>(static_cast<int>(r), i));
            }
        }
        auto sendV = F::make(ume + 1);
        auto recvV = F::make(total);
        auto ioV = F::make(total);
        for (std::size_t i = 0; i <= ume; ++i)
        {
            F::at(sendV, i) = f<T>(me, i);
            F::at(ioV, displ[ume] + i) = f<T>(me, i);
        }
        FS_CALL(mode, allGatherV, iAllGatherV, sendV, recvV, counts, comm, opts);
        FS_CALL(mode, allGatherV, iAllGatherV, fm::inPlace, ioV, counts, comm, opts);
        for (std::size_t r = 0; r < P; ++r)
        {
            for (std::size_t i = 0; i <= r; ++i)
            {
                CHECK(F::at(recvV, displ[r] + i) == f<T>(static_cast<int>(r), i));
                CHECK(F::at(ioV, displ[r] + i) == f<T>(static_cast<int>(r), i));
            }
        }
    }
    SECTION("gather and gatherV")
    {
        const int root = size - 1;
        const bool isRoot = me == root;
        auto send = F::make(n);
        auto recv = F::make(isRoot ? n * P : 0);
        auto io = F::make(n * P);
        auto sendV = F::make(ume + 1);
        auto recvV = F::make(isRoot ? total : 0);
        auto ioV = F::make(total);
        for (std::size_t i = 0; i < n; ++i)
        {
            F::at(send, i) = f<T>(me, i);
            F::at(io, ume * n + i) = f<T>(me, i);
        }
        for (std::size_t i = 0; i <= ume; ++i)
        {
            F::at(sendV, i) = f<T>(me, i);
            F::at(ioV, displ[ume] + i) = f<T>(me, i);
        }
        FS_CALL(mode, gather, iGather, send, recv, root, comm, opts);
        FS_CALL(mode, gather, iGather, fm::inPlace, io, root, comm, opts);
        // recvCounts matter on the root only (and on every rank in place)
        const std::vector<int> rootCounts = isRoot ? counts : std::vector<int> {};
        FS_CALL(mode, gatherV, iGatherV, sendV, recvV, rootCounts, root, comm, opts);
        FS_CALL(mode, gatherV, iGatherV, fm::inPlace, ioV, counts, root, comm, opts);
        if (isRoot)
        {
            for (std::size_t r = 0; r < P; ++r)
            {
                for (std::size_t i = 0; i < n; ++i)
                {
                    CHECK(F::at(recv, r * n + i) == f<T>(static_cast<int>(r), i));
                    CHECK(F::at(io, r * n + i) == f<T>(static_cast<int>(r), i));
                }
                for (std::size_t i = 0; i <= r; ++i)
                {
                    CHECK(F::at(recvV, displ[r] + i) == f<T>(static_cast<int>(r), i));
                    CHECK(F::at(ioV, displ[r] + i) == f<T>(static_cast<int>(r), i));
                }
            }
        }
    }
    SECTION("scatter and scatterV")
    {
        const int root = 0;
        const bool isRoot = me == root;
        auto send = F::make(isRoot ? n * P : 0);
        auto recv = F::make(n);
        auto io = F::make(n * P);
        auto sendV = F::make(isRoot ? total : 0);
        auto recvV = F::make(ume + 1);
        auto ioV = F::make(total);
        if (isRoot)
        {
            for (std::size_t r = 0; r < P; ++r)
            {
                for (std::size_t i = 0; i < n; ++i)
                {
                    F::at(send, r * n + i) = f<T>(static_cast<int>(r), i);
                    F::at(io, r * n + i) = f<T>(static_cast<int>(r), i);
                }
                for (std::size_t i = 0; i <= r; ++i)
                {
                    F::at(sendV, displ[r] + i) = f<T>(static_cast<int>(r), i);
                    F::at(ioV, displ[r] + i) = f<T>(static_cast<int>(r), i);
                }
            }
        }
        FS_CALL(mode, scatter, iScatter, send, recv, root, comm, opts);
        FS_CALL(mode, scatter, iScatter, io, fm::inPlace, root, comm, opts);
        const std::vector<int> rootCounts = isRoot ? counts : std::vector<int> {};
        FS_CALL(mode, scatterV, iScatterV, sendV, rootCounts, recvV, root, comm, opts);
        FS_CALL(mode, scatterV, iScatterV, ioV, counts, fm::inPlace, root, comm, opts);
        for (std::size_t i = 0; i < n; ++i)
        {
            CHECK(F::at(recv, i) == f<T>(me, i));
            CHECK(F::at(io, ume * n + i) == f<T>(me, i));
        }
        for (std::size_t i = 0; i <= ume; ++i)
        {
            CHECK(F::at(recvV, i) == f<T>(me, i));
            CHECK(F::at(ioV, displ[ume] + i) == f<T>(me, i));
        }
    }
    SECTION("allToAll and allToAllV")
    {
        auto send = F::make(n * P);
        auto recv = F::make(n * P);
        auto io = F::make(n * P);
        for (std::size_t r = 0; r < P; ++r)
        {
            for (std::size_t i = 0; i < n; ++i)
            {
                F::at(send, r * n + i) = g<T>(me, static_cast<int>(r), i);
                F::at(io, r * n + i) = g<T>(me, static_cast<int>(r), i);
            }
        }
        FS_CALL(mode, allToAll, iAllToAll, send, recv, comm, opts);
        FS_CALL(mode, allToAll, iAllToAll, fm::inPlace, io, comm, opts);
        for (std::size_t r = 0; r < P; ++r)
        {
            for (std::size_t i = 0; i < n; ++i)
            {
                CHECK(F::at(recv, r * n + i) == g<T>(static_cast<int>(r), me, i));
                CHECK(F::at(io, r * n + i) == g<T>(static_cast<int>(r), me, i));
            }
        }
        // rank a sends (a + b) % 3 + 1 values to rank b: symmetric, so in place works too
        std::vector<int> pair(P);
        for (std::size_t r = 0; r < P; ++r)
        {
            pair[r] = static_cast<int>((ume + r) % 3 + 1);
        }
        const auto pd = displacements(pair);
        auto sendV = F::make(pd.back());
        auto recvV = F::make(pd.back());
        auto ioV = F::make(pd.back());
        for (std::size_t r = 0; r < P; ++r)
        {
            for (std::size_t i = 0; i < static_cast<std::size_t>(pair[r]); ++i)
            {
                F::at(sendV, pd[r] + i) = g<T>(me, static_cast<int>(r), i);
                F::at(ioV, pd[r] + i) = g<T>(me, static_cast<int>(r), i);
            }
        }
        FS_CALL(mode, allToAllV, iAllToAllV, sendV, pair, recvV, pair, comm, opts);
        FS_CALL(mode, allToAllV, iAllToAllV, fm::inPlace, pair, ioV, pair, comm, opts);
        for (std::size_t r = 0; r < P; ++r)
        {
            for (std::size_t i = 0; i < static_cast<std::size_t>(pair[r]); ++i)
            {
                CHECK(F::at(recvV, pd[r] + i) == g<T>(static_cast<int>(r), me, i));
                CHECK(F::at(ioV, pd[r] + i) == g<T>(static_cast<int>(r), me, i));
            }
        }
    }
    SECTION("reduceScatter, equal blocks and counts")
    {
        auto send = F::make(n * P);
        auto recv = F::make(n);
        auto io = F::make(n * P);
        for (std::size_t k = 0; k < n * P; ++k)
        {
            F::at(send, k) = f<T>(me, k);
            F::at(io, k) = f<T>(me, k);
        }
        FS_CALL(mode, reduceScatter, iReduceScatter, send, recv, sum, comm, opts);
        FS_CALL(mode, reduceScatter, iReduceScatter, fm::inPlace, io, sum, comm, opts);
        for (std::size_t i = 0; i < n; ++i)
        {
            CHECK(F::at(recv, i) == sumF<T>(0, size - 1, ume * n + i));
            CHECK(F::at(io, i) == sumF<T>(0, size - 1, ume * n + i));
        }
        auto sendV = F::make(total);
        auto recvV = F::make(ume + 1);
        auto ioV = F::make(total);
        for (std::size_t k = 0; k < total; ++k)
        {
            F::at(sendV, k) = f<T>(me, k);
            F::at(ioV, k) = f<T>(me, k);
        }
        FS_CALL(mode, reduceScatter, iReduceScatter, sendV, recvV, counts, sum, comm, opts);
        FS_CALL(mode, reduceScatter, iReduceScatter, fm::inPlace, ioV, counts, sum, comm, opts);
        for (std::size_t i = 0; i <= ume; ++i)
        {
            CHECK(F::at(recvV, i) == sumF<T>(0, size - 1, displ[ume] + i));
            CHECK(F::at(ioV, i) == sumF<T>(0, size - 1, displ[ume] + i));
        }
    }
    SECTION("scan and exScan")
    {
        auto send = F::make(n);
        auto recv = F::make(n);
        auto exRecv = F::make(n);
        auto io = F::make(n);
        auto exIo = F::make(n);
        for (std::size_t i = 0; i < n; ++i)
        {
            F::at(send, i) = f<T>(me, i);
            F::at(io, i) = f<T>(me, i);
            F::at(exIo, i) = f<T>(me, i);
        }
        FS_CALL(mode, scan, iScan, send, recv, sum, comm, opts);
        FS_CALL(mode, scan, iScan, fm::inPlace, io, sum, comm, opts);
        FS_CALL(mode, exScan, iExScan, send, exRecv, sum, comm, opts);
        FS_CALL(mode, exScan, iExScan, fm::inPlace, exIo, sum, comm, opts);
        for (std::size_t i = 0; i < n; ++i)
        {
            CHECK(F::at(recv, i) == sumF<T>(0, me, i));
            CHECK(F::at(io, i) == sumF<T>(0, me, i));
            if (me > 0)
            {
                CHECK(F::at(exRecv, i) == sumF<T>(0, me - 1, i));
                CHECK(F::at(exIo, i) == sumF<T>(0, me - 1, i));
            }
        }
    }
}

} // namespace fieldsync_test
