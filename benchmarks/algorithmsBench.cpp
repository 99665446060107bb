// SPDX-License-Identifier: MIT
// algorithms_bench: each of fieldsync's own collective algorithms (doc/algorithms.md) against
// the MPI library's (Native) through the same public call, interleaved A,B,A,B after a warm-up,
// from 8 B to 4 MiB of doubles; each time is the median over repetitions of the slowest rank.
// alpha (latency) and beta (time per byte) are fitted to a ping-pong between ranks 0 and 1 of
// the same run, gamma (time per byte reduced) to MPI_Reduce_local; each algorithm's
// alpha-beta-gamma bound and the ratio measured/bound are printed and written as JSON.
//
//   mpiexec -n 2 --bind-to core build/release/benchmarks/algorithms_bench [--json PATH]
//           [--reps N (>= 11)]
#include "median.hpp"

#include "fieldsync/mpi/collectives.hpp"
#include "fieldsync/mpi/mpiInit.hpp"

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iomanip>
#include <string>
#include <utility>
#include <vector>

namespace
{
using fieldsync_bench::median;

namespace fm = fieldsync::mpi;
using A = fm::Algorithm;

/** alpha and beta of one protocol regime of the MPI library. */
struct Regime
{
    double alpha { 0 }; /**< s per message */
    double beta { 0 };  /**< s per byte sent */
};

/**
 * The machine model fitted in this run: MPI libraries switch protocol at an eager limit (Open
 * MPI's shared-memory transport at 4 KiB), so alpha and beta are fitted below and above it.
 */
struct Model
{
    double eagerLimit { 1e300 }; /**< first size of the rendezvous regime */
    Regime eager {};             /**< messages below the limit */
    Regime large {};             /**< messages from the limit on */
    double gamma { 0 };          /**< s per byte reduced */

    /** alpha + beta m for one message of @p bytes, in its regime. */
    [[nodiscard]] double msg(double bytes) const
    {
        const Regime& r = bytes < eagerLimit ? eager : large;
        return r.alpha + r.beta * bytes;
    }
};

/** One collective run by one algorithm, and its bound. */
struct Subject
{
    const char* collective;                                                 /**< name */
    A algorithm;                                                            /**< algorithm */
    std::function<void(A, std::vector<double>&, std::vector<double>&)> run; /**< one call */
    std::function<double(const Model&, int, double)> bound; /**< (model, p, n bytes) -> s */
    bool perRank;                                           /**< blocks per rank */
};

/** One row of the table. */
struct Row
{
    std::string collective; /**< name */
    std::string algorithm;  /**< name */
    double bytes;           /**< n */
    double native;          /**< median s */
    double own;             /**< median s */
    double bound;           /**< model s */
};

/** Seconds of @p call on the slowest rank. */
double timed(const std::function<void()>& call)
{
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    call();
    double t = MPI_Wtime() - t0;
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return t;
}

/** One-way time of a @p bytes message between ranks 0 and 1 (median of @p reps round trips). */
double pingPong(std::size_t bytes, int reps)
{
    int rank { 0 };
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    std::vector<char> buffer(bytes);
    const int count = static_cast<int>(bytes);
    std::vector<double> times;
    for (int i = 0; i < reps + 2; ++i)
    {
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        if (rank == 0)
        {
            MPI_Send(buffer.data(), count, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
            MPI_Recv(buffer.data(), count, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        else if (rank == 1)
        {
            MPI_Recv(buffer.data(), count, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buffer.data(), count, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
        }
        if (i >= 2)
        {
            times.push_back((MPI_Wtime() - t0) / 2);
        }
    }
    double t = median(times);
    MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return t;
}

/** Least squares of t = alpha + beta m in relative error (weights 1 / t^2) over @p points. */
Regime fitRegime(const std::vector<std::pair<double, double>>& points)
{
    double sw { 0 };
    double sx { 0 };
    double sy { 0 };
    double sxx { 0 };
    double sxy { 0 };
    for (const auto& [m, t] : points)
    {
        const double w = 1.0 / (t * t);
        sw += w;
        sx += w * m;
        sy += w * t;
        sxx += w * m * m;
        sxy += w * m * t;
    }
    Regime r;
    const double det = sw * sxx - sx * sx;
    r.beta = points.size() > 1 && det > 0 ? std::max(0.0, (sw * sxy - sx * sy) / det) : 0.0;
    r.alpha = sw > 0 ? std::max(0.0, (sy - r.beta * sx) / sw) : 0.0;
    return r;
}

/** gamma: MPI_Reduce_local of 4 MiB of doubles (median), slowest rank. */
double fitGamma(int reps)
{
    std::vector<double> a(std::size_t { 1 } << 19, 1.0);
    std::vector<double> b(a.size(), 2.0);
    std::vector<double> times;
    for (int i = 0; i < reps; ++i)
    {
        const double t0 = MPI_Wtime();
        MPI_Reduce_local(a.data(), b.data(), static_cast<int>(a.size()), MPI_DOUBLE, MPI_SUM);
        times.push_back(MPI_Wtime() - t0);
    }
    double gamma = median(times) / static_cast<double>(a.size() * sizeof(double));
    MPI_Allreduce(MPI_IN_PLACE, &gamma, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return gamma;
}

/**
 * Ping-pong from 8 B to 4 MiB in powers of two: the eager limit is the first size whose time is
 * more than 3x that of half the size; alpha and beta are fitted on each side of it.
 */
Model fit(int reps, std::vector<std::pair<double, double>>& pingPongs)
{
    Model m;
    for (std::size_t bytes = 8; bytes <= (std::size_t { 4 } << 20); bytes *= 2)
    {
        pingPongs.emplace_back(static_cast<double>(bytes), pingPong(bytes, reps));
    }
    std::vector<std::pair<double, double>> eager;
    std::vector<std::pair<double, double>> large;
    for (std::size_t i = 0; i < pingPongs.size(); ++i)
    {
        if (m.eagerLimit > 1e299 && i > 0 && pingPongs[i].second > 3 * pingPongs[i - 1].second)
        {
            m.eagerLimit = pingPongs[i].first;
        }
        (pingPongs[i].first < m.eagerLimit ? eager : large).push_back(pingPongs[i]);
    }
    m.eager = fitRegime(eager);
    m.large = large.empty() ? m.eager : fitRegime(large);
    m.gamma = fitGamma(reps);
    return m;
}

/** ceil(log2 p). */
double logCeil(int p)
{
    return std::ceil(std::log2(static_cast<double>(p)));
}

/** 2^floor(log2 p). */
int pow2(int p)
{
    int q { 1 };
    while (q * 2 <= p)
    {
        q *= 2;
    }
    return q;
}

/** log2 of the largest power of two not above @p p. */
int steps2(int p)
{
    return static_cast<int>(std::log2(pow2(p)));
}

/** Recursive halving (or doubling): messages of n/2, n/4, ... n/p2, plus @p gamma per byte. */
double halving(const Model& m, int p, double n, double gamma)
{
    double t { 0 };
    for (int k = 1; k <= steps2(p); ++k)
    {
        const double piece = n / std::pow(2.0, k);
        t += m.msg(piece) + piece * gamma;
    }
    return t;
}

/** Binomial scatter or gather: messages of about n/2, n/4, ... over ceil(log2 p) steps. */
double tree(const Model& m, int p, double n)
{
    double t { 0 };
    for (int k = 1; k <= static_cast<int>(logCeil(p)); ++k)
    {
        t += m.msg(n / std::pow(2.0, k));
    }
    return t;
}

/** The fold when p is not a power of two: @p in bytes sent in (and reduced), @p back sent back. */
double fold(const Model& m, int p, double in, double back, bool reduces)
{
    return p == pow2(p) ? 0.0 : m.msg(in) + (reduces ? in * m.gamma : 0.0) + m.msg(back);
}

} // namespace

namespace
{

fm::CallOptions<> with(A algorithm)
{
    return fm::CallOptions<> { fm::Staging::Auto, {}, algorithm };
}

using Values = std::vector<double>;

// One call of each collective on s (this rank's values) and r (all ranks' values); the
// reductions sum in place or into r, the scatters and reduceScatter read r and fill s.
void allReduceCall(A a, Values& s, Values&)
{
    fm::allReduce(s, fm::ReduceOp::Sum, MPI_COMM_WORLD, with(a));
}
void reduceCall(A a, Values& s, Values& r)
{
    fm::reduce(s, r, fm::ReduceOp::Sum, 0, MPI_COMM_WORLD, with(a));
}
void broadcastCall(A a, Values& s, Values&)
{
    fm::broadcast(s, 0, MPI_COMM_WORLD, with(a));
}
void allGatherCall(A a, Values& s, Values& r)
{
    fm::allGather(s, r, MPI_COMM_WORLD, with(a));
}
void gatherCall(A a, Values& s, Values& r)
{
    fm::gather(s, r, 0, MPI_COMM_WORLD, with(a));
}
void scatterCall(A a, Values& s, Values& r)
{
    fm::scatter(r, s, 0, MPI_COMM_WORLD, with(a));
}
void reduceScatterCall(A a, Values& s, Values& r)
{
    fm::reduceScatter(r, s, fm::ReduceOp::Sum, MPI_COMM_WORLD, with(a));
}

// The bounds: each algorithm's doc-comment formula with every message costed in its own regime
// (Model::msg); a step that sends and receives at once costs one message.
double ring(const Model& m, int p, double n)
{
    return (p - 1) * m.msg(n / p);
}
double doublingAllReduce(const Model& m, int p, double n)
{
    return steps2(p) * (m.msg(n) + n * m.gamma) + fold(m, p, n, n, true);
}
double ringAllReduce(const Model& m, int p, double n)
{
    return 2 * ring(m, p, n) + (p - 1.0) / p * n * m.gamma;
}
double rabenseifner(const Model& m, int p, double n)
{
    return halving(m, p, n, m.gamma) + halving(m, p, n, 0) + fold(m, p, n, n, true);
}
double treeReduce(const Model& m, int p, double n)
{
    return logCeil(p) * (m.msg(n) + n * m.gamma);
}
double treeBroadcast(const Model& m, int p, double n)
{
    return logCeil(p) * m.msg(n);
}
double scatterAllGather(const Model& m, int p, double n)
{
    return tree(m, p, n) + ring(m, p, n);
}
double doublingAllGather(const Model& m, int p, double n)
{
    return halving(m, p, n, 0) + fold(m, p, n / p, n, false);
}
double halvingReduceScatter(const Model& m, int p, double n)
{
    return halving(m, p, n, m.gamma) + fold(m, p, n, n / p, true);
}

/** The subjects: every collective and algorithm, with its bound. */
std::vector<Subject> subjects()
{
    return {
        { "allReduce", A::RecursiveDoubling, allReduceCall, doublingAllReduce, false },
        { "allReduce", A::Ring, allReduceCall, ringAllReduce, false },
        { "allReduce", A::Rabenseifner, allReduceCall, rabenseifner, false },
        { "reduce", A::BinomialTree, reduceCall, treeReduce, false },
        { "broadcast", A::BinomialTree, broadcastCall, treeBroadcast, false },
        { "broadcast", A::ScatterAllGather, broadcastCall, scatterAllGather, false },
        { "allGather", A::Ring, allGatherCall, ring, true },
        { "allGather", A::RecursiveDoubling, allGatherCall, doublingAllGather, true },
        { "gather", A::BinomialTree, gatherCall, tree, true },
        { "gather", A::Naive, gatherCall, ring, true },
        { "scatter", A::Naive, scatterCall, ring, true },
        { "scatter", A::DivideAndConquer, scatterCall, tree, true },
        { "reduceScatter", A::RecursiveHalving, reduceScatterCall, halvingReduceScatter, true },
    };
}

/** Medians of @p subject by its algorithm and by Native at @p bytes, interleaved. */
Row measure(const Subject& subject, std::size_t bytes, int reps, const Model& model)
{
    int p { 1 };
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    const std::size_t perRank =
        std::max<std::size_t>(1, bytes / sizeof(double) / static_cast<std::size_t>(p));
    const std::size_t small =
        subject.perRank ? perRank : std::max<std::size_t>(1, bytes / sizeof(double));
    const std::size_t large = subject.perRank ? perRank * static_cast<std::size_t>(p) : small;
    std::vector<double> s(small, 1.0);
    std::vector<double> r(large, 0.0);
    std::vector<double> own;
    std::vector<double> native;
    for (int i = 0; i < reps + 3; ++i)
    {
        const double a = timed([&] { subject.run(subject.algorithm, s, r); });
        const double b = timed([&] { subject.run(A::Native, s, r); });
        if (i >= 3)
        {
            own.push_back(a);
            native.push_back(b);
        }
    }
    const double n = static_cast<double>(large * sizeof(double));
    return Row { subject.collective, fm::toString(subject.algorithm), n, median(native),
                 median(own),        subject.bound(model, p, n) };
}

void writeJson(
    const std::string& path,
    const std::vector<Row>& rows,
    const Model& m,
    const std::vector<std::pair<double, double>>& pingPongs,
    int p
)
{
    std::ofstream json(path);
    json << std::setprecision(10);
    json << "{\n  \"ranks\": " << p << ",\n  \"eager_limit_bytes\": " << m.eagerLimit
         << ",\n  \"eager\": {\"alpha_s\": " << m.eager.alpha
         << ", \"beta_s_per_byte\": " << m.eager.beta
         << "},\n  \"large\": {\"alpha_s\": " << m.large.alpha
         << ", \"beta_s_per_byte\": " << m.large.beta << "},\n  \"gamma_s_per_byte\": " << m.gamma
         << ",\n  \"ping_pong\": [\n";
    for (std::size_t i = 0; i < pingPongs.size(); ++i)
    {
        json << "    {\"bytes\": " << pingPongs[i].first
             << ", \"one_way_s\": " << pingPongs[i].second
             << ", \"model_s\": " << m.msg(pingPongs[i].first) << "}"
             << (i + 1 < pingPongs.size() ? ",\n" : "\n");
    }
    json << "  ],\n  \"rows\": [\n";
    for (std::size_t i = 0; i < rows.size(); ++i)
    {
        const Row& r = rows[i];
        json << "    {\"collective\": \"" << r.collective << "\", \"algorithm\": \"" << r.algorithm
             << "\", \"bytes\": " << r.bytes << ", \"native_s\": " << r.native
             << ", \"algorithm_s\": " << r.own << ", \"bound_s\": " << r.bound
             << ", \"ratio_to_bound\": " << r.own / r.bound << "}"
             << (i + 1 < rows.size() ? ",\n" : "\n");
    }
    json << "  ]\n}\n";
}

/** The tables, on rank 0. */
void print(
    const std::vector<Row>& rows,
    const Model& m,
    const std::vector<std::pair<double, double>>& pingPongs,
    int p,
    int reps
)
{
    std::printf(
        "ranks %d, median of %d; eager limit %.0f B; below: alpha %.3g us, beta %.3g ns/B; "
        "from it: alpha %.3g us, beta %.3g ns/B; gamma %.3g ns/B\n\n",
        p,
        reps,
        m.eagerLimit,
        m.eager.alpha * 1e6,
        m.eager.beta * 1e9,
        m.large.alpha * 1e6,
        m.large.beta * 1e9,
        m.gamma * 1e9
    );
    std::printf("%10s %12s %12s %8s\n", "ping-pong", "one-way us", "model us", "meas/mod");
    for (const auto& [bytes, t] : pingPongs)
    {
        std::printf(
            "%10.0f %12.2f %12.2f %8.2f\n", bytes, t * 1e6, m.msg(bytes) * 1e6, t / m.msg(bytes)
        );
    }
    std::printf(
        "\n%-14s %-18s %10s %12s %12s %12s %8s %8s\n",
        "collective",
        "algorithm",
        "bytes",
        "native us",
        "algo us",
        "bound us",
        "algo/bd",
        "algo/nat"
    );
    for (const Row& r : rows)
    {
        std::printf(
            "%-14s %-18s %10.0f %12.2f %12.2f %12.2f %8.2f %8.2f\n",
            r.collective.c_str(),
            r.algorithm.c_str(),
            r.bytes,
            r.native * 1e6,
            r.own * 1e6,
            r.bound * 1e6,
            r.own / r.bound,
            r.own / r.native
        );
    }
}

} // namespace

int main(int argc, char** argv)
{
    fm::MPIInit init(argc, argv);
    fm::ensureKokkos(); // Kokkos now: this program makes Kokkos views itself
    std::string jsonPath { "algorithms_bench.json" };
    int reps { 11 };
    for (int i = 1; i < argc; ++i)
    {
        const std::string arg = argv[i];
        if (arg == "--json" && i + 1 < argc)
        {
            jsonPath = argv[++i];
        }
        else if (arg == "--reps" && i + 1 < argc)
        {
            reps = std::max(11, std::stoi(argv[++i]));
        }
    }
    int rank { 0 };
    int p { 1 };
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    std::vector<std::size_t> sizes;
    for (std::size_t bytes = 8; bytes <= (std::size_t { 4 } << 20); bytes *= 8)
    {
        sizes.push_back(bytes);
    }
    sizes.push_back(std::size_t { 4 } << 20);
    std::vector<std::pair<double, double>> pingPongs;
    const Model model = p > 1 ? fit(reps, pingPongs) : Model {};
    std::vector<Row> rows;
    for (const Subject& subject : subjects())
    {
        for (const std::size_t bytes : sizes)
        {
            rows.push_back(measure(subject, bytes, reps, model));
        }
    }
    if (rank != 0)
    {
        return 0;
    }
    print(rows, model, pingPongs, p, reps);
    writeJson(jsonPath, rows, model, pingPongs, p);
    std::printf("\nwrote %s\n", jsonPath.c_str());
    return 0;
}
