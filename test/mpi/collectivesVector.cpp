// SPDX-License-Identifier: MIT
// Every collective on std::vector, spans, scalars and every op (the pointer + count forms:
// test/compat/pointerCollectives.cpp).
#include "collectiveChecks.hpp"

#include <span>

using fieldsync_test::Vec3;
namespace fm = fieldsync::mpi;

TEMPLATE_TEST_CASE(
    "every collective on std::vector matches the independent formula",
    "[collectives][vector]",
    int,
    double,
    std::complex<double>,
    (std::array<double, 3>),
    Vec3
)
{
    const bool blocking = GENERATE(true, false);
    const auto staging = GENERATE(fm::Staging::Auto, fm::Staging::Always);
    fieldsync_test::checkAllCollectives<TestType, fieldsync_test::VectorForm>({ blocking, staging }
    );
}

TEST_CASE("scalar forms: allReduce(T&) and the seed's reduceAllScalar", "[collectives][scalar]")
{
    int size { 1 };
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double value { 1.0 };
    fm::reduceAllScalar(&value, fm::ReduceOp::SUM, MPI_COMM_WORLD);
    CHECK(value == static_cast<double>(size));
    int count { 2 };
    fm::allReduce(count, fm::ReduceOp::Prod, MPI_COMM_WORLD);
    CHECK(count == (1 << size));
    fieldsync_test::Vec3 v { 1.0, 2.0, 3.0 };
    fm::allReduce(v, fm::ReduceOp::Max, MPI_COMM_WORLD);
    CHECK(v == fieldsync_test::Vec3 { 1.0, 2.0, 3.0 });
}

TEST_CASE("every reduction op gives the independently computed result", "[collectives][ops]")
{
    int me { 0 };
    int size { 1 };
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const MPI_Comm comm = MPI_COMM_WORLD;
    auto reduced = [&](int value, fm::ReduceOp op)
    {
        fm::allReduce(value, op, comm);
        return value;
    };
    // rank r contributes r + 3 (and bit r for the bit ops)
    CHECK(reduced(me + 3, fm::ReduceOp::Min) == 3);
    CHECK(reduced(me + 3, fm::ReduceOp::MAX) == size + 2);
    CHECK(reduced(1 << me, fm::ReduceOp::BOr) == (1 << size) - 1);
    CHECK(reduced(1 << me, fm::ReduceOp::BXor) == (1 << size) - 1);
    CHECK(reduced(me == 0 ? 1 : 3, fm::ReduceOp::BAnd) == 1);
    CHECK(reduced(me, fm::ReduceOp::LAnd) == 0); // rank 0 contributes 0
    CHECK(reduced(me, fm::ReduceOp::LOr) == (size > 1 ? 1 : 0));
    bool flag { me == size - 1 };
    fm::allReduce(flag, fm::ReduceOp::LOr, comm);
    CHECK(flag);
    flag = me == size - 1;
    fm::allReduce(flag, fm::ReduceOp::LAnd, comm);
    CHECK(flag == (size == 1));
    double x { 1.5 * me };
    fm::allReduce(x, fm::ReduceOp::Max, comm);
    CHECK(x == 1.5 * (size - 1));

    // MinLoc / MaxLoc: value (r * 5) % size + r / 10.0, index r; expected found by a loop
    fm::ValueIndex<double> mine { static_cast<double>((me * 5) % size) + me / 10.0, me };
    double bestMin { 1e300 };
    double bestMax { -1e300 };
    int minAt { -1 };
    int maxAt { -1 };
    for (int r = 0; r < size; ++r)
    {
        const double v = static_cast<double>((r * 5) % size) + r / 10.0;
        if (v < bestMin)
        {
            bestMin = v;
            minAt = r;
        }
        if (v > bestMax)
        {
            bestMax = v;
            maxAt = r;
        }
    }
    auto lo = mine;
    auto hi = mine;
    fm::allReduce(lo, fm::ReduceOp::MinLoc, comm);
    fm::allReduce(hi, fm::ReduceOp::MAXLOC, comm);
    CHECK(lo.value == bestMin);
    CHECK(lo.index == minAt);
    CHECK(hi.value == bestMax);
    CHECK(hi.index == maxAt);
    std::vector<fm::ValueIndex<int>> pairs { { me, me }, { -me, me } };
    fm::allReduce(pairs, fm::ReduceOp::MaxLoc, comm);
    CHECK(pairs[0].value == size - 1);
    CHECK(pairs[0].index == size - 1);
    CHECK(pairs[1].value == 0);
    CHECK(pairs[1].index == 0);
}

TEST_CASE("spans and const inputs", "[collectives][span]")
{
    int size { 1 };
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const std::vector<int> input { 1, 2, 3 };
    std::array<int, 3> output {};
    fm::allReduce(input, std::span<int>(output), fm::ReduceOp::Sum, MPI_COMM_WORLD);
    CHECK(output == std::array<int, 3> { size, 2 * size, 3 * size });
    Kokkos::View<const int*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> view(
        input.data(), 3
    );
    std::vector<int> out(3);
    fm::allReduce(view, out, fm::ReduceOp::Max, MPI_COMM_WORLD);
    CHECK(out == input);
}

TEST_CASE(
    "non-blocking V calls in a row on communicators of different sizes, on and off the root",
    "[collectives][vector][v]"
)
{
    // the thread's spare call state keeps its count arrays from call to call: each call must
    // lay out its own (as many entries as its communicator has ranks), and a rank off the root
    // must give MPI none of the last call's
    int me { 0 };
    int size { 1 };
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm half { MPI_COMM_NULL };
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half);
    for (int round = 0; round < 3; ++round)
    {
        for (const MPI_Comm comm : { MPI_COMM_WORLD, half })
        {
            int r { 0 };
            int p { 1 };
            MPI_Comm_rank(comm, &r);
            MPI_Comm_size(comm, &p);
            // rank q sends q + 1 values q * 10 + k + round
            std::vector<int> counts(static_cast<std::size_t>(p));
            for (int q = 0; q < p; ++q)
            {
                counts[static_cast<std::size_t>(q)] = q + 1;
            }
            std::vector<double> mine(static_cast<std::size_t>(r + 1));
            for (int k = 0; k <= r; ++k)
            {
                mine[static_cast<std::size_t>(k)] = r * 10.0 + k + round;
            }
            const auto total = static_cast<std::size_t>(p * (p + 1) / 2);
            std::vector<double> all(total, -1.0);
            fm::iAllGatherV(mine, all, counts, comm).wait();
            const int root { round % p };
            std::vector<double> atRoot(r == root ? total : 0, -1.0);
            // off the root the counts are optional: none given
            auto gathered = r == root ? fm::iGatherV(mine, atRoot, counts, root, comm)
                                      : fm::iGatherV(mine, atRoot, {}, root, comm);
            gathered.wait();
            std::size_t at { 0 };
            for (int q = 0; q < p; ++q)
            {
                for (int k = 0; k <= q; ++k, ++at)
                {
                    const double expected { q * 10.0 + k + round };
                    CHECK(all[at] == expected);
                    if (r == root)
                    {
                        CHECK(atRoot[at] == expected);
                    }
                }
            }
        }
    }
    MPI_Comm_free(&half);
}
