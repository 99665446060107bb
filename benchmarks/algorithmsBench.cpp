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
#include "fieldsync/mpi/collectives.hpp"
#include "fieldsync/mpi/mpiInit.hpp"

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

namespace
{

namespace fm = fieldsync::mpi;
using A = fm::Algorithm;

/** The machine model fitted in this run. */
struct Model
{
    double alpha { 0 }; /**< s per message */
    double beta { 0 };  /**< s per byte sent */
    double gamma { 0 }; /**< s per byte reduced */
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

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

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

/**
 * alpha from the smallest message, beta the least-squares slope of the one-way time over the
 * messages of 64 KiB and more (where the per-byte term dominates), gamma from MPI_Reduce_local.
 */
Model fit(const std::vector<std::size_t>& sizes, int reps)
{
    Model m;
    double sx { 0 };
    double sy { 0 };
    double sxx { 0 };
    double sxy { 0 };
    int k { 0 };
    for (const std::size_t bytes : sizes)
    {
        const double t = pingPong(bytes, reps);
        if (bytes == sizes.front())
        {
            m.alpha = t;
        }
        if (bytes >= 65536)
        {
            const auto x = static_cast<double>(bytes);
            sx += x;
            sy += t;
            sxx += x * x;
            sxy += x * t;
            ++k;
        }
    }
    m.beta = k > 1 ? (k * sxy - sx * sy) / (k * sxx - sx * sx) : 0.0;
    std::vector<double> a(1 << 19, 1.0);
    std::vector<double> b(a.size(), 2.0);
    std::vector<double> times;
    for (int i = 0; i < reps; ++i)
    {
        const double t0 = MPI_Wtime();
        MPI_Reduce_local(a.data(), b.data(), static_cast<int>(a.size()), MPI_DOUBLE, MPI_SUM);
        times.push_back(MPI_Wtime() - t0);
    }
    m.gamma = median(times) / static_cast<double>(a.size() * sizeof(double));
    MPI_Allreduce(MPI_IN_PLACE, &m.gamma, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
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

/** The extra steps of the fold when p is not a power of two: send n, reduce n, send back. */
double fold(const Model& m, int p, double n, double back)
{
    return p == pow2(p) ? 0.0 : 2 * m.alpha + (n + back) * m.beta + n * m.gamma;
}

} // namespace

namespace
{

fm::CallOptions<> with(A algorithm)
{
    return fm::CallOptions<> { fm::Staging::Auto, {}, algorithm };
}

/** The subjects: every collective and algorithm, with the bound of its doc comment. */
std::vector<Subject> subjects()
{
    const MPI_Comm w = MPI_COMM_WORLD;
    const auto sum = fm::ReduceOp::Sum;
    const auto allReduce = [w, sum](A a, std::vector<double>& s, std::vector<double>&)
    {
        fm::allReduce(s, sum, w, with(a));
    };
    const auto reduce = [w, sum](A a, std::vector<double>& s, std::vector<double>& r)
    {
        fm::reduce(s, r, sum, 0, w, with(a));
    };
    const auto broadcast = [w](A a, std::vector<double>& s, std::vector<double>&)
    {
        fm::broadcast(s, 0, w, with(a));
    };
    const auto allGather = [w](A a, std::vector<double>& s, std::vector<double>& r)
    {
        fm::allGather(s, r, w, with(a));
    };
    const auto gather = [w](A a, std::vector<double>& s, std::vector<double>& r)
    {
        fm::gather(s, r, 0, w, with(a));
    };
    const auto scatter = [w](A a, std::vector<double>& s, std::vector<double>& r)
    {
        fm::scatter(r, s, 0, w, with(a));
    };
    const auto reduceScatter = [w, sum](A a, std::vector<double>& s, std::vector<double>& r)
    {
        fm::reduceScatter(r, s, sum, w, with(a));
    };
    const auto part = [](int p)
    {
        return static_cast<double>(p - 1) / p;
    };
    const auto part2 = [](int p)
    {
        return static_cast<double>(pow2(p) - 1) / pow2(p);
    };
    return {
        { "allReduce",
          A::RecursiveDoubling,
          allReduce,
          [](const Model& m, int p, double n)
          { return std::log2(pow2(p)) * (m.alpha + n * m.beta + n * m.gamma) + fold(m, p, n, n); },
          false },
        { "allReduce",
          A::Ring,
          allReduce,
          [part](const Model& m, int p, double n)
          { return 2 * (p - 1) * m.alpha + part(p) * n * (2 * m.beta + m.gamma); },
          false },
        { "allReduce",
          A::Rabenseifner,
          allReduce,
          [part2](const Model& m, int p, double n)
          {
              return 2 * std::log2(pow2(p)) * m.alpha + part2(p) * n * (2 * m.beta + m.gamma) +
                     fold(m, p, n, n);
          },
          false },
        { "reduce",
          A::BinomialTree,
          reduce,
          [](const Model& m, int p, double n)
          { return logCeil(p) * (m.alpha + n * m.beta + n * m.gamma); },
          false },
        { "broadcast",
          A::BinomialTree,
          broadcast,
          [](const Model& m, int p, double n) { return logCeil(p) * (m.alpha + n * m.beta); },
          false },
        { "broadcast",
          A::ScatterAllGather,
          broadcast,
          [part](const Model& m, int p, double n)
          { return (logCeil(p) + p - 1) * m.alpha + 2 * part(p) * n * m.beta; },
          false },
        { "allGather",
          A::Ring,
          allGather,
          [part](const Model& m, int p, double n)
          { return (p - 1) * m.alpha + part(p) * n * m.beta; },
          true },
        { "allGather",
          A::RecursiveDoubling,
          allGather,
          [part](const Model& m, int p, double n)
          {
              const double extra = p == pow2(p) ? 0.0 : 2 * m.alpha + (n / p + n) * m.beta;
              return std::log2(pow2(p)) * m.alpha + part(p) * n * m.beta + extra;
          },
          true },
        { "gather",
          A::BinomialTree,
          gather,
          [part](const Model& m, int p, double n)
          { return logCeil(p) * m.alpha + part(p) * n * m.beta; },
          true },
        { "gather",
          A::Naive,
          gather,
          [part](const Model& m, int p, double n)
          { return (p - 1) * m.alpha + part(p) * n * m.beta; },
          true },
        { "scatter",
          A::Naive,
          scatter,
          [part](const Model& m, int p, double n)
          { return (p - 1) * m.alpha + part(p) * n * m.beta; },
          true },
        { "scatter",
          A::DivideAndConquer,
          scatter,
          [part](const Model& m, int p, double n)
          { return logCeil(p) * m.alpha + part(p) * n * m.beta; },
          true },
        { "reduceScatter",
          A::RecursiveHalving,
          reduceScatter,
          [part2](const Model& m, int p, double n)
          {
              const double extra =
                  p == pow2(p) ? 0.0 : 2 * m.alpha + (n + n / p) * m.beta + n * m.gamma;
              return std::log2(pow2(p)) * m.alpha + part2(p) * n * (m.beta + m.gamma) + extra;
          },
          true },
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

void writeJson(const std::string& path, const std::vector<Row>& rows, const Model& m, int p)
{
    std::ofstream json(path);
    json << "{\n  \"ranks\": " << p << ",\n  \"alpha_s\": " << m.alpha
         << ",\n  \"beta_s_per_byte\": " << m.beta << ",\n  \"gamma_s_per_byte\": " << m.gamma
         << ",\n  \"rows\": [\n";
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

} // namespace

int main(int argc, char** argv)
{
    fm::MPIInit init(argc, argv);
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
    const Model model = p > 1 ? fit(sizes, reps) : Model {};
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
    std::printf(
        "ranks %d, alpha %.3g us, beta %.3g ns/B (%.2f GB/s), gamma %.3g ns/B, median of %d\n\n",
        p,
        model.alpha * 1e6,
        model.beta * 1e9,
        1e-9 / model.beta,
        model.gamma * 1e9,
        reps
    );
    std::printf(
        "%-14s %-18s %10s %12s %12s %12s %8s %8s\n",
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
    writeJson(jsonPath, rows, model, p);
    std::printf("\nwrote %s\n", jsonPath.c_str());
    return 0;
}
