// SPDX-License-Identifier: MIT
// NeoN's operators header as NeoN's tests and solver use it, under `using namespace fieldsync`:
// ReduceOp's NeoN spellings, getOp, getType (NeoN's answers for characters), allReduce, and
// the point-to-point isend/irecv/test with bufferHash tags. Every expected value is computed on
// each rank from its rank and the number of ranks, never by the library.
#include "fieldsync_test/catch.hpp"

#include "fieldsync/core/mpi/operators.hpp"

#include <array>
#include <cmath>
#include <complex>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

using namespace fieldsync;
using namespace fieldsync::mpi;

TEST_CASE("getOp maps NeoN's spellings to MPI's operations", "[compat][operators]")
{
    CHECK(getOp(ReduceOp::Max) == MPI_MAX);
    CHECK(getOp(ReduceOp::Min) == MPI_MIN);
    CHECK(getOp(ReduceOp::Sum) == MPI_SUM);
    CHECK(getOp(ReduceOp::Prod) == MPI_PROD);
    CHECK(getOp(ReduceOp::Land) == MPI_LAND);
    CHECK(getOp(ReduceOp::Band) == MPI_BAND);
    CHECK(getOp(ReduceOp::Lor) == MPI_LOR);
    CHECK(getOp(ReduceOp::Bor) == MPI_BOR);
    CHECK(getOp(ReduceOp::Maxloc) == MPI_MAXLOC);
    CHECK(getOp(ReduceOp::Minloc) == MPI_MINLOC);
    // the spellings name the same values as fieldsync's and the seed's
    STATIC_REQUIRE(ReduceOp::Land == ReduceOp::LAnd);
    STATIC_REQUIRE(ReduceOp::Bor == ReduceOp::BOR);
    STATIC_REQUIRE(ReduceOp::Minloc == ReduceOp::MinLoc);
}

TEST_CASE("getType gives NeoN's datatypes", "[compat][operators]")
{
    CHECK(getType<char>() == MPI_CHAR);
    CHECK(getType<wchar_t>() == MPI_WCHAR);
    CHECK(getType<short>() == MPI_SHORT);
    CHECK(getType<int>() == MPI_INT);
    CHECK(getType<long>() == MPI_LONG);
    CHECK(getType<long long>() == MPI_LONG_LONG);
    CHECK(getType<unsigned short>() == MPI_UNSIGNED_SHORT);
    CHECK(getType<unsigned>() == MPI_UNSIGNED);
    CHECK(getType<unsigned long>() == MPI_UNSIGNED_LONG);
    CHECK(getType<unsigned long long>() == MPI_UNSIGNED_LONG_LONG);
    CHECK(getType<float>() == MPI_FLOAT);
    CHECK(getType<double>() == MPI_DOUBLE);
    CHECK(getType<long double>() == MPI_LONG_DOUBLE);
    CHECK(getType<bool>() == MPI_CXX_BOOL);
    CHECK(getType<std::complex<float>>() == MPI_CXX_FLOAT_COMPLEX);
    CHECK(getType<std::complex<double>>() == MPI_CXX_DOUBLE_COMPLEX);
    CHECK(getType<std::complex<long double>>() == MPI_CXX_LONG_DOUBLE_COMPLEX);
}

TEST_CASE("reductions of characters still work although getType<char> is MPI_CHAR", "[compat]")
{
    const MPIEnvironment world;
    const int rank { world.rank() };
    const int size { world.sizeRank() };
    char letter { static_cast<char>('a' + rank % 20) };
    allReduce(letter, ReduceOp::Max, MPI_COMM_WORLD);
    CHECK(letter == static_cast<char>('a' + std::min(size - 1, 19)));
    wchar_t wide { static_cast<wchar_t>(rank + 1) };
    allReduce(wide, ReduceOp::Sum, MPI_COMM_WORLD);
    CHECK(wide == static_cast<wchar_t>(size * (size + 1) / 2));
    std::complex<long double> z { 1.0L, static_cast<long double>(rank) };
    allReduce(z, ReduceOp::Sum, MPI_COMM_WORLD);
    CHECK(z.real() == static_cast<long double>(size));
    CHECK(z.imag() == static_cast<long double>(size * (size - 1) / 2));
}

TEST_CASE("allReduce of a value with each of NeoN's operations", "[compat][operators]")
{
    const MPIEnvironment world;
    const int rank { world.rank() };
    const int size { world.sizeRank() };
    const int first { rank == 0 ? 1 : 0 }; // 1 on rank 0 only

    int value { rank };
    allReduce(value, ReduceOp::Max, MPI_COMM_WORLD);
    CHECK(value == size - 1);
    value = rank;
    allReduce(value, ReduceOp::Min, MPI_COMM_WORLD);
    CHECK(value == 0);
    value = 2;
    allReduce(value, ReduceOp::Sum, MPI_COMM_WORLD);
    CHECK(value == 2 * size);
    float product { 2.5F };
    allReduce(product, ReduceOp::Prod, MPI_COMM_WORLD);
    CHECK(product == Approx(std::pow(2.5F, static_cast<float>(size))));
    // 1 on rank 0 only: "and" is 1 only on one rank, "or" always 1
    const int all { size == 1 ? 1 : 0 };
    for (const auto& [op, expected] : { std::pair { ReduceOp::Land, all },
                                        std::pair { ReduceOp::Band, all },
                                        std::pair { ReduceOp::Lor, 1 },
                                        std::pair { ReduceOp::Bor, 1 } })
    {
        CAPTURE(toString(op));
        value = first;
        allReduce(value, op, MPI_COMM_WORLD);
        CHECK(value == expected);
    }
    ValueIndex<double> located { static_cast<double>((rank * 7) % size), rank };
    allReduce(located, ReduceOp::Maxloc, MPI_COMM_WORLD);
    int expectedRank { 0 };
    for (int r = 0; r < size; ++r)
    {
        expectedRank = (r * 7) % size > (expectedRank * 7) % size ? r : expectedRank;
    }
    CHECK(located.index == expectedRank);
    CHECK(located.value == static_cast<double>((expectedRank * 7) % size));
}

TEST_CASE("allReduce of NeoN's Vec3 reduces each component", "[compat][operators]")
{
    const MPIEnvironment world;
    const int rank { world.rank() };
    const int size { world.sizeRank() };
    Vec3 values;
    for (std::size_t i = 0; i < values.size(); ++i)
    {
        values[i] = rank + 10.0 * static_cast<double>(i);
    }
    Vec3 highest = values;
    Vec3 lowest = values;
    Vec3 sum = values;
    Vec3 product(2.0, -1.0, 0.5);
    allReduce(highest, ReduceOp::Max, MPI_COMM_WORLD);
    allReduce(lowest, ReduceOp::Min, MPI_COMM_WORLD);
    allReduce(sum, ReduceOp::Sum, MPI_COMM_WORLD);
    allReduce(product, ReduceOp::Prod, MPI_COMM_WORLD);
    for (std::size_t i = 0; i < values.size(); ++i)
    {
        CHECK(highest[i] == (size - 1) + 10.0 * static_cast<double>(i));
        CHECK(lowest(i) == 10.0 * static_cast<double>(i));
        CHECK(sum[i] == size * (size - 1) / 2 + 10.0 * static_cast<double>(i) * size);
    }
    CHECK(product == Vec3(std::pow(2.0, size), std::pow(-1.0, size), std::pow(0.5, size)));
    CHECK(Vec3() == Vec3(0.0));
    double total { 1.5 };
    reduceAllScalar(&total, ReduceOp::Sum, MPI_COMM_WORLD);
    CHECK(total == 1.5 * size);
}

TEST_CASE("bufferHash gives one valid tag per name on every rank", "[compat][operators]")
{
    const int tag { bufferHash("Send and Receive") };
    CHECK(tag >= 0);
    CHECK(tag < 32767);
    CHECK(tag == bufferHash(std::string("Send and Receive")));
    CHECK(bufferHash("a") != bufferHash("b"));
    int lowest { tag };
    int highest { tag };
    allReduce(lowest, ReduceOp::Min, MPI_COMM_WORLD);
    allReduce(highest, ReduceOp::Max, MPI_COMM_WORLD);
    CHECK(lowest == highest);
}

TEST_CASE("isend, irecv and test move values between every pair of ranks", "[compat][p2p]")
{
    const MPIEnvironment world;
    const int rank { world.rank() };
    const int size { world.sizeRank() };
    const int tag { bufferHash("isend irecv") };
    const auto n = static_cast<std::size_t>(size);
    std::vector<double> out(2 * n);
    std::vector<double> in(2 * n, -1.0);
    std::vector<MPI_Request> requests(2 * n, MPI_REQUEST_NULL);
    for (int r = 0; r < size; ++r)
    {
        const auto k = static_cast<std::size_t>(r);
        out[2 * k] = 100.0 * rank + r;
        out[2 * k + 1] = -out[2 * k];
        irecv<double>(&in[2 * k], 2, r, tag, MPI_COMM_WORLD, &requests[k]);
    }
    for (int r = 0; r < size; ++r)
    {
        const auto k = static_cast<std::size_t>(r);
        isend<double>(&out[2 * k], 2, r, tag, MPI_COMM_WORLD, &requests[n + k]);
    }
    for (MPI_Request& request : requests)
    {
        while (!mpi::test(&request))
        {
        }
        CHECK(request == MPI_REQUEST_NULL);
    }
    for (int r = 0; r < size; ++r)
    {
        const auto k = static_cast<std::size_t>(r);
        CHECK(in[2 * k] == 100.0 * r + rank);
        CHECK(in[2 * k + 1] == -(100.0 * r + rank));
    }
    MPI_Request none { MPI_REQUEST_NULL };
    CHECK(mpi::test(&none));
    CHECK_THROWS_WITH(mpi::test(nullptr), Catch::Contains("null pointer"));
}
