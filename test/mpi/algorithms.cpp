// SPDX-License-Identifier: MIT
// fieldsync's own collective algorithms (compat/fieldsync/mpi/algorithms.hpp), selected with
// CallOptions::algorithm: every algorithm against a formula of rank and index and against the
// Native result, on host and staged views, blocking and not, in place and not; the rank-order
// fallback of non-commutative ops; the Error of an algorithm that does not apply.
#include "collectiveChecks.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/mpi/algorithms.hpp"

#include <functional>
#include <string>
#include <utility>

namespace fm = fieldsync::mpi;
using fieldsync_test::f;
using fieldsync_test::sumF;

namespace
{

int rankOf()
{
    int rank { 0 };
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

int sizeOf()
{
    int size { 1 };
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    return size;
}

template<typename T>
using View = Kokkos::View<T*, Kokkos::HostSpace>;

/** A view of @p n values, value i = @p value(i). */
template<typename T>
View<T> filled(std::size_t n, const std::function<T(std::size_t)>& value)
{
    View<T> view("fieldsync_test::algorithms", n);
    for (std::size_t i = 0; i < n; ++i)
    {
        view(i) = value(i);
    }
    return view;
}

/** Checks @p view against @p expected on the first @p n values; one CHECK per view. */
template<typename T>
void expectValues(const View<T>& view, std::size_t n, const std::function<T(std::size_t)>& expected)
{
    std::size_t wrong { 0 };
    std::size_t first { n };
    for (std::size_t i = 0; i < n; ++i)
    {
        if (!(view(i) == expected(i)))
        {
            first = wrong++ == 0 ? i : first;
        }
    }
    INFO("first wrong value at " << first << " of " << n);
    CHECK(wrong == 0);
}

/** One way of calling: blocking or not, staged or not, in place or not. */
struct Way
{
    bool blocking { true };                    /**< blocking call, or i-form and wait */
    fm::Staging staging { fm::Staging::Auto }; /**< Always: the device path on host memory */
    bool inPlace { false };                    /**< the in-place form */
};

/** The options of one call. */
fm::CallOptions<> options(const Way& way, fm::Algorithm algorithm)
{
    return fm::CallOptions<> { .staging = way.staging, .algorithm = algorithm };
}

/** allReduce by @p algorithm: the sum over ranks of f(r, i), and the Native result. */
template<typename T>
View<T> allReduceWith(const Way& way, fm::Algorithm algorithm, std::size_t n, int)
{
    const int rank = rankOf();
    View<T> mine = filled<T>(n, [&](std::size_t i) { return f<T>(rank, i); });
    View<T> out = way.inPlace ? mine : filled<T>(n, [](std::size_t) { return T {}; });
    const auto o = options(way, algorithm);
    if (way.inPlace)
    {
        way.blocking ? fm::allReduce(mine, fm::ReduceOp::Sum, MPI_COMM_WORLD, o)
                     : fm::iAllReduce(mine, fm::ReduceOp::Sum, MPI_COMM_WORLD, o).wait();
    }
    else
    {
        way.blocking ? fm::allReduce(mine, out, fm::ReduceOp::Sum, MPI_COMM_WORLD, o)
                     : fm::iAllReduce(mine, out, fm::ReduceOp::Sum, MPI_COMM_WORLD, o).wait();
    }
    return out;
}

/** reduce by @p algorithm to @p root. */
template<typename T>
View<T> reduceWith(const Way& way, fm::Algorithm algorithm, std::size_t n, int root)
{
    const int rank = rankOf();
    View<T> mine = filled<T>(n, [&](std::size_t i) { return f<T>(rank, i); });
    View<T> out = way.inPlace ? mine : filled<T>(n, [](std::size_t) { return T {}; });
    const auto o = options(way, algorithm);
    if (way.inPlace)
    {
        way.blocking ? fm::reduce(mine, fm::ReduceOp::Sum, root, MPI_COMM_WORLD, o)
                     : fm::iReduce(mine, fm::ReduceOp::Sum, root, MPI_COMM_WORLD, o).wait();
    }
    else
    {
        way.blocking ? fm::reduce(mine, out, fm::ReduceOp::Sum, root, MPI_COMM_WORLD, o)
                     : fm::iReduce(mine, out, fm::ReduceOp::Sum, root, MPI_COMM_WORLD, o).wait();
    }
    return out;
}

/** broadcast by @p algorithm from @p root: f(root, i) everywhere. */
template<typename T>
View<T> broadcastWith(const Way& way, fm::Algorithm algorithm, std::size_t n, int root)
{
    const int rank = rankOf();
    View<T> data = filled<T>(n, [&](std::size_t i) { return f<T>(rank, i); });
    const auto o = options(way, algorithm);
    way.blocking ? fm::broadcast(data, root, MPI_COMM_WORLD, o)
                 : fm::iBroadcast(data, root, MPI_COMM_WORLD, o).wait();
    return data;
}

/** This rank's n values f(rank, i), and p blocks of n holding them at this rank's block. */
template<typename T>
std::pair<View<T>, View<T>> gatherBuffers(std::size_t n)
{
    const int rank = rankOf();
    const auto r = static_cast<std::size_t>(rank);
    View<T> mine = filled<T>(n, [&](std::size_t i) { return f<T>(rank, i); });
    View<T> all = filled<T>(
        n * static_cast<std::size_t>(sizeOf()),
        [&](std::size_t i) { return i / n == r ? mine(i % n) : T {}; }
    );
    return { mine, all };
}

/** allGather by @p algorithm: block r holds f(r, i). */
template<typename T>
View<T> allGatherWith(const Way& way, fm::Algorithm algorithm, std::size_t n, int)
{
    auto [mine, out] = gatherBuffers<T>(n);
    const auto o = options(way, algorithm);
    if (way.inPlace)
    {
        way.blocking ? fm::allGather(fm::inPlace, out, MPI_COMM_WORLD, o)
                     : fm::iAllGather(fm::inPlace, out, MPI_COMM_WORLD, o).wait();
    }
    else
    {
        way.blocking ? fm::allGather(mine, out, MPI_COMM_WORLD, o)
                     : fm::iAllGather(mine, out, MPI_COMM_WORLD, o).wait();
    }
    return out;
}

/** gather by @p algorithm to @p root: block r holds f(r, i) on the root. */
template<typename T>
View<T> gatherWith(const Way& way, fm::Algorithm algorithm, std::size_t n, int root)
{
    auto [mine, out] = gatherBuffers<T>(n);
    const auto o = options(way, algorithm);
    if (way.inPlace)
    {
        way.blocking ? fm::gather(fm::inPlace, out, root, MPI_COMM_WORLD, o)
                     : fm::iGather(fm::inPlace, out, root, MPI_COMM_WORLD, o).wait();
    }
    else
    {
        way.blocking ? fm::gather(mine, out, root, MPI_COMM_WORLD, o)
                     : fm::iGather(mine, out, root, MPI_COMM_WORLD, o).wait();
    }
    return out;
}

/** scatter by @p algorithm from @p root, whose block r is f(root + r, i): rank r's values. */
template<typename T>
View<T> scatterWith(const Way& way, fm::Algorithm algorithm, std::size_t n, int root)
{
    const int rank = rankOf();
    const std::size_t p = static_cast<std::size_t>(sizeOf());
    View<T> all = filled<T>(
        n * p,
        [&](std::size_t i)
        { return rank == root ? f<T>(root + static_cast<int>(i / n), i % n) : T {}; }
    );
    View<T> out = filled<T>(n, [](std::size_t) { return T {}; });
    const auto o = options(way, algorithm);
    if (way.inPlace)
    {
        way.blocking ? fm::scatter(all, fm::inPlace, root, MPI_COMM_WORLD, o)
                     : fm::iScatter(all, fm::inPlace, root, MPI_COMM_WORLD, o).wait();
        Kokkos::deep_copy(
            out,
            Kokkos::subview(
                all,
                std::make_pair(
                    static_cast<std::size_t>(rank) * n, static_cast<std::size_t>(rank + 1) * n
                )
            )
        );
    }
    else
    {
        way.blocking ? fm::scatter(all, out, root, MPI_COMM_WORLD, o)
                     : fm::iScatter(all, out, root, MPI_COMM_WORLD, o).wait();
    }
    return out;
}

/** reduceScatter by @p algorithm: rank r contributes f(r, j) at j, receives sums of block r. */
template<typename T>
View<T> reduceScatterWith(const Way& way, fm::Algorithm algorithm, std::size_t n, int)
{
    const int rank = rankOf();
    const std::size_t p = static_cast<std::size_t>(sizeOf());
    View<T> all = filled<T>(n * p, [&](std::size_t j) { return f<T>(rank, j); });
    View<T> out = filled<T>(n, [](std::size_t) { return T {}; });
    const auto o = options(way, algorithm);
    if (way.inPlace)
    {
        way.blocking
            ? fm::reduceScatter(fm::inPlace, all, fm::ReduceOp::Sum, MPI_COMM_WORLD, o)
            : fm::iReduceScatter(fm::inPlace, all, fm::ReduceOp::Sum, MPI_COMM_WORLD, o).wait();
        Kokkos::deep_copy(out, Kokkos::subview(all, std::make_pair(std::size_t { 0 }, n)));
    }
    else
    {
        way.blocking ? fm::reduceScatter(all, out, fm::ReduceOp::Sum, MPI_COMM_WORLD, o)
                     : fm::iReduceScatter(all, out, fm::ReduceOp::Sum, MPI_COMM_WORLD, o).wait();
    }
    return out;
}

/** One collective run by one algorithm: its result, the values to check, and the formula. */
template<typename T>
struct Case
{
    const char* name;                                                        /**< collective */
    fm::Algorithm algorithm;                                                 /**< algorithm */
    std::function<View<T>(const Way&, fm::Algorithm, std::size_t, int)> run; /**< result */
    std::function<std::size_t(std::size_t, int)> checked;                    /**< values compared */
    std::function<T(std::size_t, std::size_t, int)> expected; /**< formula: n, i, root */
    bool rooted { true };                                     /**< takes a root */
};

/** Every collective and algorithm fieldsync has. */
template<typename T>
std::vector<Case<T>> cases()
{
    using A = fm::Algorithm;
    const int p = sizeOf();
    const int rank = rankOf();
    const auto size = static_cast<std::size_t>(p);
    const auto r = static_cast<std::size_t>(rank);
    // values compared: (n, root) -> count
    const auto mine = [](std::size_t n, int)
    {
        return n;
    };
    const auto all = [size](std::size_t n, int)
    {
        return n * size;
    };
    const auto onRoot = [rank](std::size_t n, int root)
    {
        return rank == root ? n : 0;
    };
    const auto allOnRoot = [rank, size](std::size_t n, int root)
    {
        return rank == root ? n * size : 0;
    };
    // formulas: (n, i, root) -> value
    const auto sum = [p](std::size_t, std::size_t i, int)
    {
        return sumF<T>(0, p - 1, i);
    };
    const auto blocks = [](std::size_t n, std::size_t i, int)
    {
        return f<T>(static_cast<int>(i / n), i % n);
    };
    const auto fromRoot = [](std::size_t, std::size_t i, int root)
    {
        return f<T>(root, i);
    };
    const auto scattered = [rank](std::size_t, std::size_t i, int root)
    {
        return f<T>(root + rank, i);
    };
    const auto ownSum = [p, r](std::size_t n, std::size_t i, int)
    {
        return sumF<T>(0, p - 1, r * n + i);
    };
    return {
        { "allReduce", A::RecursiveDoubling, &allReduceWith<T>, mine, sum, false },
        { "allReduce", A::Ring, &allReduceWith<T>, mine, sum, false },
        { "allReduce", A::Rabenseifner, &allReduceWith<T>, mine, sum, false },
        { "reduce", A::BinomialTree, &reduceWith<T>, onRoot, sum },
        { "broadcast", A::BinomialTree, &broadcastWith<T>, mine, fromRoot },
        { "broadcast", A::ScatterAllGather, &broadcastWith<T>, mine, fromRoot },
        { "allGather", A::Ring, &allGatherWith<T>, all, blocks, false },
        { "allGather", A::RecursiveDoubling, &allGatherWith<T>, all, blocks, false },
        { "gather", A::BinomialTree, &gatherWith<T>, allOnRoot, blocks },
        { "gather", A::Naive, &gatherWith<T>, allOnRoot, blocks },
        { "scatter", A::Naive, &scatterWith<T>, mine, scattered },
        { "scatter", A::DivideAndConquer, &scatterWith<T>, mine, scattered },
        { "reduceScatter", A::RecursiveHalving, &reduceScatterWith<T>, mine, ownSum, false },
    };
}

/** Runs every case in @p way for several sizes (0, fewer than the ranks, more) and roots. */
template<typename T>
void checkEveryAlgorithm(const Way& way)
{
    const int p = sizeOf();
    // zero, fewer values than ranks (1 on one rank), more, and many
    const std::size_t sizes[] {
        0, static_cast<std::size_t>(p > 1 ? p - 1 : 1), static_cast<std::size_t>(p + 1), 37
    };
    for (const Case<T>& c : cases<T>())
    {
        for (const std::size_t n : sizes)
        {
            for (const int root : { 0, p - 1, p / 2 })
            {
                if (!c.rooted && root != 0)
                {
                    continue;
                }
                INFO(
                    c.name << " by " << fm::toString(c.algorithm) << ", " << n << " values, root "
                           << root << (way.blocking ? ", blocking" : ", non-blocking")
                           << (way.staging == fm::Staging::Always ? ", staged" : "")
                           << (way.inPlace ? ", in place" : "")
                );
                const View<T> mine = c.run(way, c.algorithm, n, root);
                const View<T> native = c.run(way, fm::Algorithm::Native, n, root);
                const std::size_t checked = c.checked(n, root);
                expectValues<T>(
                    mine, checked, [&](std::size_t i) { return c.expected(n, i, root); }
                );
                expectValues<T>(mine, checked, [&](std::size_t i) { return native(i); });
            }
        }
    }
}

} // namespace

TEMPLATE_TEST_CASE("every algorithm matches the formula and the Native result", "[algorithms]", int, double, std::complex<double>)
{
    const bool blocking = GENERATE(true, false);
    const auto staging = GENERATE(fm::Staging::Auto, fm::Staging::Always);
    const bool inPlace = GENERATE(false, true);
    checkEveryAlgorithm<TestType>({ blocking, staging, inPlace });
}

namespace
{

/** A number written in decimal digits and how many digits: concatenation is associative but
 * not commutative, so a result in rank order shows the ranks were combined in rank order. */
struct Digits
{
    long long value;  /**< the digits */
    long long length; /**< how many */
};

/** The user op: inout = in followed by inout. */
void concatenate(void* in, void* inout, int* len, MPI_Datatype*)
{
    auto* a = static_cast<const Digits*>(in);
    auto* b = static_cast<Digits*>(inout);
    for (int k = 0; k < *len / 2; ++k)
    {
        long long scale { 1 };
        for (long long d = 0; d < b[k].length; ++d)
        {
            scale *= 10;
        }
        b[k] = Digits { a[k].value * scale + b[k].value, a[k].length + b[k].length };
    }
}

/** Rank @p r's digit at @p i. */
long long digit(int r, std::size_t i)
{
    return static_cast<long long>((static_cast<std::size_t>(r) + i) % 9 + 1);
}

/** The digits of ranks 0 .. p-1 at @p i, in rank order. */
Digits concatenated(int p, std::size_t i)
{
    Digits d { 0, 0 };
    for (int r = 0; r < p; ++r)
    {
        d = Digits { d.value * 10 + digit(r, i), d.length + 1 };
    }
    return d;
}

/** Checks @p values[0, n) against concatenated(p, offset + i). */
void expectConcatenated(const std::vector<Digits>& values, std::size_t n, std::size_t offset)
{
    std::size_t wrong { 0 };
    for (std::size_t i = 0; i < n; ++i)
    {
        const Digits want = concatenated(sizeOf(), offset + i);
        wrong += values[i].value == want.value && values[i].length == want.length ? 0 : 1;
    }
    CHECK(wrong == 0);
}

} // namespace

TEST_CASE("non-commutative user ops are combined in rank order", "[algorithms][order]")
{
    namespace fa = fm::algorithms;
    MPI_Op op { MPI_OP_NULL };
    MPI_Op_create(concatenate, 0, &op);
    const fa::TypeDesc type { MPI_LONG_LONG, 2, sizeof(Digits), fm::detail::TypeClass::Integer };
    const int p = sizeOf();
    const int rank = rankOf();
    const fa::Context context { MPI_COMM_WORLD };
    for (const std::size_t n :
         { std::size_t { 0 }, std::size_t { 1 }, static_cast<std::size_t>(p + 1) })
    {
        INFO(n << " values");
        std::vector<Digits> mine(n * static_cast<std::size_t>(p));
        for (std::size_t i = 0; i < mine.size(); ++i)
        {
            mine[i] = Digits { digit(rank, i), 1 };
        }
        std::vector<Digits> out(mine.size(), Digits { -1, -1 });
        fa::allReduceRecursiveDoubling(mine.data(), out.data(), n, type, op, context).wait();
        expectConcatenated(out, n, 0);
        fa::allReduceRing(mine.data(), out.data(), n, type, op, context).wait();
        expectConcatenated(out, n, 0);
        std::vector<Digits> inPlace = mine;
        fa::allReduceRabenseifner(MPI_IN_PLACE, inPlace.data(), n, type, op, context).wait();
        expectConcatenated(inPlace, n, 0);
        for (const int root : { 0, p - 1 })
        {
            std::vector<Digits> reduced(n, Digits { -1, -1 });
            fa::reduceBinomial(mine.data(), reduced.data(), n, type, op, root, context).wait();
            if (rank == root)
            {
                expectConcatenated(reduced, n, 0);
            }
        }
        std::vector<Digits> block(n, Digits { -1, -1 });
        fa::reduceScatterRecursiveHalving(mine.data(), block.data(), n, type, op, context).wait();
        expectConcatenated(block, n, static_cast<std::size_t>(rank) * n);
    }
    MPI_Op_free(&op);
}

namespace
{

/** Runs @p call, which must throw an Error naming this file and containing @p text. */
template<typename Call>
void expectError(Call&& call, const std::string& text)
{
    fieldsync_test::expectErrorFrom(std::forward<Call>(call), text, "algorithms.cpp");
}

} // namespace

TEST_CASE("an algorithm that does not apply is an Error naming both", "[algorithms][errors]")
{
    const std::size_t p = static_cast<std::size_t>(sizeOf());
    std::vector<double> send(p, 1.0);
    std::vector<double> recv(p, 0.0);
    const auto with = [](fm::Algorithm a)
    {
        return fm::CallOptions<> { .algorithm = a };
    };
    expectError(
        [&] { fm::allToAll(send, recv, MPI_COMM_WORLD, with(fm::Algorithm::Ring)); },
        "allToAll: algorithm Ring does not apply to allToAll"
    );
    expectError(
        [&] {
            fm::scatter(
                send, std::span(recv).first(1), 0, MPI_COMM_WORLD, with(fm::Algorithm::Ring)
            );
        },
        "scatter: algorithm Ring does not apply to scatter"
    );
    expectError(
        [&]
        {
            auto request = fm::iAllReduce(
                send, recv, fm::ReduceOp::Sum, MPI_COMM_WORLD, with(fm::Algorithm::BinomialTree)
            );
            request.wait();
        },
        "iAllReduce: algorithm BinomialTree does not apply to allReduce"
    );
    const std::vector<int> counts(p, 1);
    expectError(
        [&]
        {
            fm::reduceScatter(
                send,
                std::span(recv).first(1),
                counts,
                fm::ReduceOp::Sum,
                MPI_COMM_WORLD,
                with(fm::Algorithm::RecursiveHalving)
            );
        },
        "algorithm RecursiveHalving does not apply to reduceScatter"
    );
}

TEST_CASE("doc/algorithms.md example", "[algorithms][doc]")
{
    const MPI_Comm comm = MPI_COMM_WORLD;
    std::vector<double> residuals(3, 1.0);
    Kokkos::View<double*> field("field", 5);
    Kokkos::deep_copy(field, rankOf() == 0 ? 2.0 : 0.0);

    // [selecting] (keep in step with doc/algorithms.md)
    namespace fm = fieldsync::mpi;
    fm::allReduce(residuals, fm::ReduceOp::Sum, comm, { .algorithm = fm::Algorithm::Ring });
    auto request = fm::iBroadcast(field, 0, comm, { .algorithm = fm::Algorithm::ScatterAllGather });
    request.wait();
    // [selecting]

    CHECK(residuals[2] == static_cast<double>(sizeOf()));
    auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace {}, field);
    CHECK(host(4) == 2.0);
}

TEST_CASE("a non-blocking algorithm moves on only through test() and completes", "[algorithms]")
{
    const int p = sizeOf();
    std::vector<int> data(100, rankOf() + 1);
    auto request = fm::iAllReduce(
        data, fm::ReduceOp::Sum, MPI_COMM_WORLD, { .algorithm = fm::Algorithm::Rabenseifner }
    );
    while (!request.test())
    {
    }
    CHECK(!request.active());
    CHECK(data[99] == p * (p + 1) / 2);
}
