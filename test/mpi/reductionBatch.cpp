// SPDX-License-Identifier: MIT
// ReductionBatch: several scalars of mixed types and ops in one allreduce, blocking and
// non-blocking, checked against closed forms over the ranks computed on each rank, and every
// type with every op it takes against the op applied rank by rank in the test; with MPI's
// allreduce and with fieldsync's own recursive doubling, bitwise equal on every rank.
#include "fieldsync_test/catch.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/mpi/gathers.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"
#include "fieldsync/mpi/reductionBatch.hpp"
#include "fieldsync/mpi/reductions.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <vector>

namespace fm = fieldsync::mpi;

namespace
{

/** The values of one rank and the closed forms of their reductions over @p p ranks. */
struct Mixed
{
    int sumInt { 0 };
    long maxLong { 0 };
    float minFloat { 0 };
    double sumDouble { 0 };
    long long prodLongLong { 0 };
    unsigned bitOr { 0 };
    bool allPositive { false };
    bool anyLast { false };
    int landInt { 0 };
    double maxDouble { 0 };

    /** Rank @p r's values. */
    explicit Mixed(int r)
        : sumInt(r * r + 1), maxLong(1000L * ((r * 7) % 5) - r),
          minFloat(2.5f - static_cast<float>(r)), sumDouble(0.5 * r + 0.25), prodLongLong(r + 2),
          bitOr(1u << r), allPositive(r >= 0), anyLast(false), landInt(r + 1), maxDouble(-1.0 * r)
    {
    }

    /** Registers every member, each with its op. */
    void addTo(fm::ReductionBatch& batch)
    {
        batch.add(sumInt, fm::ReduceOp::Sum)
            .add(maxLong, fm::ReduceOp::Max)
            .add(minFloat, fm::ReduceOp::Min)
            .add(sumDouble, fm::ReduceOp::Sum)
            .add(prodLongLong, fm::ReduceOp::Prod)
            .add(bitOr, fm::ReduceOp::BOr)
            .add(allPositive, fm::ReduceOp::LAnd)
            .add(anyLast, fm::ReduceOp::LOr)
            .add(landInt, fm::ReduceOp::LAnd)
            .add(maxDouble, fm::ReduceOp::Max);
    }

    /** Checks the reduced members against the closed forms over @p p ranks. */
    void checkReduced(int p) const
    {
        long sum { 0 };
        long maxL { -1000000 };
        long long prod { 1 };
        unsigned bits { 0 };
        for (int r = 0; r < p; ++r)
        {
            sum += r * r + 1;
            maxL = std::max(maxL, 1000L * ((r * 7) % 5) - r);
            prod *= r + 2;
            bits |= 1u << r;
        }
        CHECK(sumInt == sum);
        CHECK(maxLong == maxL);
        CHECK(minFloat == 2.5f - static_cast<float>(p - 1));
        CHECK(sumDouble == 0.25 * p * (p - 1) + 0.25 * p);
        CHECK(prodLongLong == prod);
        CHECK(bitOr == bits);
        CHECK(allPositive);
        CHECK_FALSE(anyLast);
        CHECK(landInt == 1);
        CHECK(maxDouble == 0.0);
    }
};

/** Expects @p call to throw a fieldsync::Error containing @p text, naming this file and rank. */
template<typename Call>
void expectError(Call&& call, const std::string& text, int worldRank)
{
    try
    {
        call();
        FAIL("no fieldsync::Error thrown; expected one containing: " << text);
    }
    catch (const fieldsync::Error& error)
    {
        const std::string what { error.what() };
        INFO(what);
        CHECK(what.find(text) != std::string::npos);
        CHECK(
            std::string(error.where().file_name()).find("reductionBatch.cpp") != std::string::npos
        );
        CHECK(error.rank() == worldRank);
        CHECK(what.find("rank " + std::to_string(worldRank)) != std::string::npos);
    }
}

} // namespace

TEST_CASE("ReductionBatch: mixed types and ops, blocking, against closed forms", "[batch]")
{
    const fm::MPIEnvironment env;
    const int p = env.sizeRank();
    Mixed values(env.rank());
    fm::ReductionBatch batch(env.comm());
    values.addTo(batch);
    REQUIRE(batch.size() == 10);
    batch.run();
    values.checkReduced(p);

    SECTION("a batch runs again, reading the variables anew")
    {
        values = Mixed(env.rank());
        batch.run();
        values.checkReduced(p);
    }
}

TEST_CASE("ReductionBatch: sums of f(rank) for k = 1..16 scalars", "[batch]")
{
    const fm::MPIEnvironment env;
    const int p = env.sizeRank();
    const int r = env.rank();
    for (int k = 1; k <= 16; ++k)
    {
        std::vector<double> doubles(16);
        std::vector<int> ints(16);
        fm::ReductionBatch batch(env.comm());
        for (int i = 0; i < k; ++i)
        {
            const auto at = static_cast<std::size_t>(i);
            if (i % 2 == 0)
            {
                doubles[at] = std::ldexp(1.0, r) * (i + 1); // sum: (2^p - 1) (i + 1)
                batch.add(doubles[at], fm::ReduceOp::Sum);
            }
            else
            {
                ints[at] = (r * 5 + i) % 7; // min over ranks computed below
                batch.add(ints[at], fm::ReduceOp::Min);
            }
        }
        batch.run();
        for (int i = 0; i < k; ++i)
        {
            const auto at = static_cast<std::size_t>(i);
            if (i % 2 == 0)
            {
                CHECK(doubles[at] == (std::ldexp(1.0, p) - 1.0) * (i + 1));
            }
            else
            {
                int least { 7 };
                for (int q = 0; q < p; ++q)
                {
                    least = std::min(least, (q * 5 + i) % 7);
                }
                CHECK(ints[at] == least);
            }
        }
    }
}

TEST_CASE("ReductionBatch: non-blocking, results written at wait", "[batch]")
{
    const fm::MPIEnvironment env;
    const int p = env.sizeRank();
    Mixed values(env.rank());
    fm::ReductionBatch batch(env.comm());
    values.addTo(batch);

    SECTION("start, work that overlaps, wait")
    {
        batch.start();
        CHECK(batch.inFlight());
        // an independent collective while the batch is in flight
        double other = env.rank();
        fm::allReduce(other, fm::ReduceOp::Max, env.comm());
        CHECK(other == p - 1);
        batch.wait();
        CHECK_FALSE(batch.inFlight());
        values.checkReduced(p);
    }
    SECTION("test until complete")
    {
        batch.start();
        while (!batch.test())
        {
        }
        CHECK_FALSE(batch.inFlight());
        values.checkReduced(p);
    }
    SECTION("values are read at start: changes after start do not count")
    {
        batch.start();
        values.sumInt = -12345;
        batch.wait();
        values.checkReduced(p);
    }
}

TEST_CASE("ReductionBatch: an empty batch does nothing", "[batch]")
{
    const fm::MPIEnvironment env;
    fm::ReductionBatch batch(env.comm());
    CHECK(batch.empty());
    batch.run();
    batch.start();
    CHECK(batch.inFlight());
    batch.wait();
    CHECK_FALSE(batch.inFlight());
    // a cleared batch is empty again
    int value = 1;
    batch.add(value, fm::ReduceOp::Sum);
    CHECK(batch.size() == 1);
    batch.clear();
    CHECK(batch.empty());
    batch.run();
    CHECK(value == 1);
}

TEST_CASE("ReductionBatch: bad input is an Error naming the call site and rank", "[batch]")
{
    const fm::MPIEnvironment env;
    int worldRank { 0 };
    MPI_Comm_rank(MPI_COMM_WORLD, &worldRank);
    const int p = env.sizeRank();
    double x = 1.0;
    int n = 1;
    bool flag = true;
    fm::ReductionBatch batch(env.comm());
    batch.add(x, fm::ReduceOp::Sum);

    SECTION("adding after start")
    {
        batch.start();
        expectError([&] { batch.add(n, fm::ReduceOp::Sum); }, "in flight", worldRank);
        expectError([&] { batch.start(); }, "already in flight", worldRank);
        expectError([&] { batch.run(); }, "in flight", worldRank);
        expectError([&] { batch.clear(); }, "in flight", worldRank);
        batch.wait();
        CHECK(x == p);
        // once complete, the batch takes new entries again
        batch.add(n, fm::ReduceOp::Sum);
        CHECK(batch.size() == 2);
    }
    SECTION("waiting twice")
    {
        batch.start();
        batch.wait();
        CHECK(x == p);
        expectError([&] { batch.wait(); }, "no reduction in flight", worldRank);
        expectError([&] { static_cast<void>(batch.test()); }, "no reduction in flight", worldRank);
    }
    SECTION("waiting without a start")
    {
        expectError([&] { batch.wait(); }, "never started, or already waited for", worldRank);
    }
    SECTION("an op the type does not take")
    {
        expectError(
            [&] { batch.add(x, fm::ReduceOp::BOr); },
            "ReduceOp BOr is not defined on double",
            worldRank
        );
        expectError(
            [&] { batch.add(flag, fm::ReduceOp::Sum); },
            "ReduceOp Sum is not defined on bool",
            worldRank
        );
        expectError(
            [&] { batch.add(n, fm::ReduceOp::MinLoc); },
            "ReduceOp MinLoc needs the variable its location goes to",
            worldRank
        );
        std::int64_t where { 0 };
        unsigned count { 1 };
        expectError(
            [&] { batch.add(x, where, fm::ReduceOp::Sum); },
            "ReduceOp Sum takes no location",
            worldRank
        );
        expectError(
            [&] { batch.add(count, where, fm::ReduceOp::MaxLoc); },
            "ReduceOp MaxLoc is not defined on unsigned int",
            worldRank
        );
        CHECK(batch.size() == 1);
        batch.run(); // the batch is unchanged and still works
        CHECK(x == p);
    }
    SECTION("an algorithm other than Native and RecursiveDoubling")
    {
        expectError(
            [&] { fm::ReductionBatch ring(env.comm(), fm::Algorithm::Ring); },
            "ReductionBatch: Algorithm Ring does not apply to a ReductionBatch",
            worldRank
        );
    }
    SECTION("MPI_COMM_NULL")
    {
        expectError([&] { fm::ReductionBatch bad(MPI_COMM_NULL); }, "MPI_COMM_NULL", worldRank);
    }
}

namespace
{
/** The known value of cell @p id: 0..4 in a pattern, so the largest and smallest occur on many
 * cells of several ranks (ties). */
double cflOf(std::int64_t id)
{
    return static_cast<double>((id * 7 + 3) % 5) * 0.25;
}

/** The known per-cell integer: ties as well, other positions than cflOf's. */
long loadOf(std::int64_t id)
{
    return (id * 3 + 1) % 4;
}
} // namespace

TEST_CASE(
    "ReductionBatch: MinLoc and MaxLoc give the value and where, lowest location of ties", "[batch]"
)
{
    // Truth: computed here over every global cell id, independently of the ranks: the largest
    // and smallest known value and the lowest id that has it (MPI's rule for ties); and for
    // values every rank passes alike, the lowest rank.
    const fm::MPIEnvironment env;
    const int p { env.sizeRank() };
    constexpr std::int64_t nCells { 41 };
    double maxCfl { 0 };
    double minCfl { 0 };
    long maxLoad { 0 };
    float same { 0 };
    std::int64_t maxCflAt { 0 };
    std::int64_t minCflAt { 0 };
    std::int64_t maxLoadAt { 0 };
    std::int64_t sameAt { 0 };
    double residual { 0 };
    fm::ReductionBatch batch(env.comm());
    batch.add(residual, fm::ReduceOp::Sum)
        .add(maxCfl, maxCflAt, fm::ReduceOp::MaxLoc)
        .add(same, sameAt, fm::ReduceOp::MinLoc)
        .add(minCfl, minCflAt, fm::ReduceOp::MinLoc)
        .add(maxLoad, maxLoadAt, fm::ReduceOp::MaxLoc);
    const auto fill = [&]
    {
        // this rank's cells: ids rank, rank + p, ... (cyclic), scanned in descending order so
        // that the local choice of a tie is not simply the first one met
        maxCfl = -1.0;
        minCfl = 1e9;
        maxLoad = -1;
        for (std::int64_t id { (nCells - 1) / p * p + env.rank() }; id >= 0; id -= p)
        {
            if (id >= nCells)
            {
                continue;
            }
            const double c { cflOf(id) };
            if (c > maxCfl || (c == maxCfl && id < maxCflAt))
            {
                maxCfl = c;
                maxCflAt = id;
            }
            if (c < minCfl || (c == minCfl && id < minCflAt))
            {
                minCfl = c;
                minCflAt = id;
            }
            if (loadOf(id) > maxLoad || (loadOf(id) == maxLoad && id < maxLoadAt))
            {
                maxLoad = loadOf(id);
                maxLoadAt = id;
            }
        }
        same = 1.5F;
        sameAt = env.rank();
        residual = 1.0;
    };
    double truthMax { -1.0 };
    double truthMin { 1e9 };
    long truthLoad { -1 };
    std::int64_t truthMaxAt { -1 };
    std::int64_t truthMinAt { -1 };
    std::int64_t truthLoadAt { -1 };
    for (std::int64_t id { 0 }; id < nCells; ++id) // ascending: the first met is the lowest
    {
        if (cflOf(id) > truthMax)
        {
            truthMax = cflOf(id);
            truthMaxAt = id;
        }
        if (cflOf(id) < truthMin)
        {
            truthMin = cflOf(id);
            truthMinAt = id;
        }
        if (loadOf(id) > truthLoad)
        {
            truthLoad = loadOf(id);
            truthLoadAt = id;
        }
    }
    const auto check = [&]
    {
        CHECK(residual == static_cast<double>(p));
        CHECK(maxCfl == truthMax);
        CHECK(maxCflAt == truthMaxAt);
        CHECK(minCfl == truthMin);
        CHECK(minCflAt == truthMinAt);
        CHECK(maxLoad == truthLoad);
        CHECK(maxLoadAt == truthLoadAt);
        CHECK(same == 1.5F);
        CHECK(sameAt == 0);
    };
    fill();
    batch.run();
    check();
    fill();
    batch.start();
    batch.wait();
    check();
}

TEST_CASE("ReductionBatch: moved with a reduction in flight", "[batch]")
{
    const fm::MPIEnvironment env;
    const int p = env.sizeRank();
    long value = env.rank() + 1;
    fm::ReductionBatch first(env.comm());
    first.add(value, fm::ReduceOp::Sum);
    first.start();
    fm::ReductionBatch second(std::move(first));
    CHECK(second.inFlight());
    second.wait();
    CHECK(value == static_cast<long>(p) * (p + 1) / 2);
}

namespace
{

/** The ops a batch takes on T (doc/collectives.md). */
template<typename T>
std::vector<fm::ReduceOp> opsOf()
{
    using Op = fm::ReduceOp;
    if constexpr (std::is_same_v<T, bool>)
    {
        return { Op::LAnd, Op::LOr, Op::LXor };
    }
    else if constexpr (std::is_floating_point_v<T>)
    {
        return { Op::Sum, Op::Prod, Op::Min, Op::Max };
    }
    else
    {
        return { Op::Sum, Op::Prod, Op::Min,  Op::Max, Op::LAnd,
                 Op::LOr, Op::LXor, Op::BAnd, Op::BOr, Op::BXor };
    }
}

/** Rank @p r's value of T for @p op: small and exact, different between ranks. */
template<typename T>
T contribution(fm::ReduceOp op, int r)
{
    using Op = fm::ReduceOp;
    if constexpr (std::is_same_v<T, bool>)
    {
        // LXor: true everywhere, so that it differs from LOr on an even number of ranks
        return op == Op::LAnd ? r != 1 : (op == Op::LOr ? r == 2 : true);
    }
    else
    {
        switch (op)
        {
        case Op::Sum:
            return static_cast<T>(r * 3 + 1) / static_cast<T>(2); // halves for floats
        case Op::Prod:
            return static_cast<T>(r % 3 + 1);
        case Op::Min:
        case Op::Max:
            return static_cast<T>((r * 5 + 2) % 7);
        case Op::LAnd:
            return static_cast<T>(r == 1 ? 0 : r + 1);
        case Op::LOr:
            return static_cast<T>(r == 2 ? 5 : 0);
        case Op::LXor:
            return static_cast<T>(r % 2 == 0 ? 1 : 3); // never 0: differs from LOr
        default:                                       // the bit ops
            return static_cast<T>((0x5A >> (r % 3)) | (r << 4));
        }
    }
}

/** @p a op @p b, as MPI defines the op (written here, not taken from the library). */
template<typename T>
T apply(fm::ReduceOp op, T a, T b)
{
    using Op = fm::ReduceOp;
    const bool x = a != T {};
    const bool y = b != T {};
    switch (op)
    {
    case Op::LAnd:
        return static_cast<T>(x && y);
    case Op::LOr:
        return static_cast<T>(x || y);
    case Op::LXor:
        return static_cast<T>(x != y);
    case Op::Min:
        return std::min(a, b);
    case Op::Max:
        return std::max(a, b);
    default:
        break;
    }
    if constexpr (std::is_same_v<T, bool>)
    {
        return a; // no arithmetic op is defined on bool
    }
    else if constexpr (std::is_floating_point_v<T>)
    {
        return op == Op::Sum ? static_cast<T>(a + b) : static_cast<T>(a * b);
    }
    else
    {
        switch (op)
        {
        case Op::Sum:
            return static_cast<T>(a + b);
        case Op::Prod:
            return static_cast<T>(a * b);
        case Op::BAnd:
            return static_cast<T>(a & b);
        case Op::BOr:
            return static_cast<T>(a | b);
        default:
            return static_cast<T>(a ^ b);
        }
    }
}

/** One entry per op T takes: the variables (stable addresses) and their ops. */
template<typename T>
struct Entries
{
    std::vector<fm::ReduceOp> ops { opsOf<T>() };     /**< one per variable */
    std::deque<T> values = std::deque<T>(ops.size()); /**< the variables (not vector<bool>) */

    /** Sets rank @p r's values. */
    void fill(int r)
    {
        for (std::size_t i = 0; i < ops.size(); ++i)
        {
            values[i] = contribution<T>(ops[i], r);
        }
    }

    /** Adds entry @p i to @p batch if there is one; true if there was. */
    bool addTo(fm::ReductionBatch& batch, std::size_t i)
    {
        if (i >= ops.size())
        {
            return false;
        }
        batch.add(values[i], ops[i]);
        return true;
    }

    /** The wrong values after a reduction over @p p ranks. */
    int wrong(int p) const
    {
        int count { 0 };
        for (std::size_t i = 0; i < ops.size(); ++i)
        {
            T expected = contribution<T>(ops[i], 0);
            for (int q = 1; q < p; ++q)
            {
                expected = apply<T>(ops[i], expected, contribution<T>(ops[i], q));
            }
            INFO("type " << typeid(T).name() << ", op " << fm::toString(ops[i]));
            CHECK(values[i] == expected);
            count += values[i] == expected ? 0 : 1;
        }
        return count;
    }
};

/** Every type a batch takes, each with every op it takes. */
struct EveryPair
{
    Entries<int> ints;                   /**< int */
    Entries<unsigned> uints;             /**< unsigned */
    Entries<long> longs;                 /**< long */
    Entries<unsigned long> ulongs;       /**< unsigned long */
    Entries<long long> llongs;           /**< long long */
    Entries<unsigned long long> ullongs; /**< unsigned long long */
    Entries<float> floats;               /**< float */
    Entries<double> doubles;             /**< double */
    Entries<bool> bools;                 /**< bool */

    /** Calls @p f on each type's entries. */
    template<typename F>
    void each(F&& f)
    {
        f(ints);
        f(uints);
        f(longs);
        f(ulongs);
        f(llongs);
        f(ullongs);
        f(floats);
        f(doubles);
        f(bools);
    }
};

} // namespace

TEST_CASE("ReductionBatch: every type with every op it takes, in one batch", "[batch]")
{
    const fm::MPIEnvironment env;
    const int p = env.sizeRank();
    EveryPair pairs;
    fm::ReductionBatch batch(env.comm());
    // added op by op across the types, so the layout regroups them (the wire order differs)
    for (std::size_t i = 0; i < 10; ++i)
    {
        pairs.each([&](auto& entries) { entries.addTo(batch, i); });
    }
    CHECK(batch.size() == 6 * 10 + 2 * 4 + 3);
    int wrong { 0 };
    pairs.each([&](auto& entries) { entries.fill(env.rank()); });
    batch.run();
    pairs.each([&](const auto& entries) { wrong += entries.wrong(p); });
    pairs.each([&](auto& entries) { entries.fill(env.rank()); });
    batch.start();
    batch.wait();
    pairs.each([&](const auto& entries) { wrong += entries.wrong(p); });
    CHECK(wrong == 0);
}

TEST_CASE("ReductionBatch: a blocking run while another batch is in flight", "[batch]")
{
    // the op finds the running batch's layout without the registry, and any other batch's (one
    // that MPI progresses during the blocking call) in the registry
    const fm::MPIEnvironment env;
    const int p = env.sizeRank();
    const int r = env.rank();
    double sumA { 0 };
    int maxA { 0 };
    long sumB { 0 };
    float minB { 0 };
    bool anyB { false };
    fm::ReductionBatch a(env.comm());
    a.add(sumA, fm::ReduceOp::Sum).add(maxA, fm::ReduceOp::Max);
    fm::ReductionBatch b(env.comm());
    b.add(minB, fm::ReduceOp::Min).add(sumB, fm::ReduceOp::Sum).add(anyB, fm::ReduceOp::LOr);
    const auto fill = [&]
    {
        sumA = 0.5 * r;
        maxA = (r * 3) % 4;
        sumB = 10L * r + 1;
        minB = 4.0f - static_cast<float>(r);
        anyB = r == p - 1;
    };
    const auto check = [&]
    {
        int largest { 0 };
        for (int q = 0; q < p; ++q)
        {
            largest = std::max(largest, (q * 3) % 4);
        }
        CHECK(sumA == 0.25 * p * (p - 1));
        CHECK(maxA == largest);
        CHECK(sumB == 5L * p * (p - 1) + p);
        CHECK(minB == 4.0f - static_cast<float>(p - 1));
        CHECK(anyB);
    };
    for (int round = 0; round < 4; ++round)
    {
        fill();
        fm::ReductionBatch& started = round % 2 == 0 ? a : b;
        fm::ReductionBatch& blocking = round % 2 == 0 ? b : a;
        started.start();
        blocking.run();
        started.wait();
        check();
    }
}

namespace
{

/** Rank @p r's entries for the algorithm tests: closed forms of the rank over p ranks. */
struct RankForms
{
    int sumInt { 0 };           /**< r + 1: p (p + 1) / 2 */
    long long sumLong { 0 };    /**< 2^40 (r + 1): 2^40 p (p + 1) / 2 */
    double sumTenths { 0 };     /**< 0.1 (r + 1): rounded, so only equal bits tell */
    double minHalf { 0 };       /**< -(r + 1) / 2: -p / 2 */
    int maxInt { 0 };           /**< r + 1: p */
    double parabola { 0 };      /**< (r - 1.5)^2, MinLoc: ranks 1 and 2 tie at 0.25 */
    std::int64_t parabolaAt {}; /**< 100 + r: 101 wins the tie (100 on one rank) */
    int odd { 0 };              /**< r % 2, MaxLoc: every odd rank ties at 1 */
    std::int64_t oddAt {};      /**< 100 + r: 101 (100 on one rank, where r = 0 is 0) */

    /** Sets rank @p r's values. */
    void fill(int r)
    {
        sumInt = r + 1;
        sumLong = (1LL << 40) * (r + 1);
        sumTenths = 0.1 * (r + 1);
        minHalf = -0.5 * (r + 1);
        maxInt = r + 1;
        parabola = (r - 1.5) * (r - 1.5);
        parabolaAt = 100 + r;
        odd = r % 2;
        oddAt = 100 + r;
    }

    /** Registers every member. */
    void addTo(fm::ReductionBatch& batch)
    {
        batch.add(sumInt, fm::ReduceOp::Sum)
            .add(sumLong, fm::ReduceOp::Sum)
            .add(sumTenths, fm::ReduceOp::Sum)
            .add(minHalf, fm::ReduceOp::Min)
            .add(maxInt, fm::ReduceOp::Max)
            .add(parabola, parabolaAt, fm::ReduceOp::MinLoc)
            .add(odd, oddAt, fm::ReduceOp::MaxLoc);
    }

    /** Checks the reduced members against the closed forms over @p p ranks, and that every
     * rank holds the same bits (gathered over @p comm). */
    void checkReduced(int p, MPI_Comm comm) const
    {
        CHECK(sumInt == p * (p + 1) / 2);
        CHECK(sumLong == (1LL << 40) * p * (p + 1) / 2);
        CHECK(std::abs(sumTenths - 0.05 * p * (p + 1)) <= 1e-14);
        CHECK(minHalf == -0.5 * p);
        CHECK(maxInt == p);
        CHECK(parabola == (p == 1 ? 2.25 : 0.25));
        CHECK(parabolaAt == (p == 1 ? 100 : 101));
        CHECK(odd == (p == 1 ? 0 : 1));
        CHECK(oddAt == (p == 1 ? 100 : 101));
        const std::array<std::uint64_t, 9> mine {
            static_cast<std::uint64_t>(sumInt),      static_cast<std::uint64_t>(sumLong),
            std::bit_cast<std::uint64_t>(sumTenths), std::bit_cast<std::uint64_t>(minHalf),
            static_cast<std::uint64_t>(maxInt),      std::bit_cast<std::uint64_t>(parabola),
            static_cast<std::uint64_t>(parabolaAt),  static_cast<std::uint64_t>(odd),
            static_cast<std::uint64_t>(oddAt)
        };
        std::vector<std::uint64_t> all(mine.size() * static_cast<std::size_t>(p));
        fm::allGather(std::span(mine), all, comm);
        for (std::size_t i { mine.size() }; i < all.size(); ++i)
        {
            INFO("value " << i % mine.size() << " of rank " << i / mine.size());
            CHECK(all[i] == all[i % mine.size()]);
        }
    }
};

} // namespace

TEST_CASE(
    "ReductionBatch: Native and RecursiveDoubling against closed forms, the same bits on every "
    "rank",
    "[batch]"
)
{
    const fm::MPIEnvironment env;
    const int p { env.sizeRank() };
    const std::optional<fm::Algorithm> given { GENERATE(
        std::optional<fm::Algorithm> {},
        std::optional { fm::Algorithm::Native },
        std::optional { fm::Algorithm::RecursiveDoubling }
    ) };
    INFO("algorithm " << (given ? fm::toString(*given) : "unset"));
    RankForms forms;
    fm::ReductionBatch batch(env.comm(), given);
    forms.addTo(batch);
    // 7 entries, 72 packed bytes: unset chooses recursive doubling for start()
    CHECK(batch.startAlgorithm() == given.value_or(fm::Algorithm::RecursiveDoubling));

    SECTION("blocking")
    {
        for (int round { 0 }; round < 2; ++round)
        {
            forms.fill(env.rank());
            batch.run();
            forms.checkReduced(p, env.comm());
        }
    }
    SECTION("start, tests while other work runs, wait")
    {
        for (int round { 0 }; round < 3; ++round)
        {
            forms.fill(env.rank());
            batch.start();
            forms.sumInt = -1; // read at start: a change afterwards does not count
            double other { static_cast<double>(env.rank()) };
            for (int k { 0 }; k < 4; ++k) // as many on every rank: each one a collective
            {
                fm::allReduce(other, fm::ReduceOp::Max, env.comm()); // the other work
                CHECK(other == p - 1);
                if (batch.inFlight())
                {
                    (void)batch.test();
                }
            }
            if (batch.inFlight())
            {
                batch.wait();
            }
            CHECK_FALSE(batch.inFlight());
            forms.checkReduced(p, env.comm());
        }
    }
    SECTION("test until complete")
    {
        forms.fill(env.rank());
        batch.start();
        while (!batch.test())
        {
        }
        forms.checkReduced(p, env.comm());
    }
}

TEST_CASE("ReductionBatch: the algorithm unset is chosen by the packed size", "[batch]")
{
    const fm::MPIEnvironment env;
    const int p { env.sizeRank() };
    std::vector<double> values(fm::ReductionBatch::ownAlgorithmBytes / sizeof(double) + 1);
    fm::ReductionBatch batch(env.comm());
    for (std::size_t i { 0 }; i < values.size(); ++i)
    {
        batch.add(values[i], fm::ReduceOp::Sum);
        // up to ownAlgorithmBytes (32 doubles) recursive doubling, above MPI's
        CHECK(
            batch.startAlgorithm() ==
            ((i + 1) * sizeof(double) <= fm::ReductionBatch::ownAlgorithmBytes
                 ? fm::Algorithm::RecursiveDoubling
                 : fm::Algorithm::Native)
        );
    }
    CHECK(batch.startAlgorithm() == fm::Algorithm::Native);
    for (std::size_t i { 0 }; i < values.size(); ++i)
    {
        values[i] = static_cast<double>((env.rank() + 1) * (i + 1));
    }
    batch.start();
    batch.wait();
    for (std::size_t i { 0 }; i < values.size(); ++i)
    {
        CHECK(values[i] == 0.5 * p * (p + 1) * static_cast<double>(i + 1));
    }
    CHECK(
        fm::ReductionBatch(env.comm(), fm::Algorithm::RecursiveDoubling).startAlgorithm() ==
        fm::Algorithm::RecursiveDoubling
    );
}
