// SPDX-License-Identifier: MIT
// hierarchy_bench: the hierarchical allreduce of a CommunicatorHierarchy level (groups of
// --group ranks, named rank / group) against the native allreduce on the same ranks, for doubles
// from 8 B to 4 MiB. Methods run interleaved in each round; a round's time is the slowest
// rank's; the table shows the median of 11 rounds (3 with --quick). Writes JSON (--json PATH).
//
//   mpiexec -n 2 --bind-to core build/release/benchmarks/hierarchy_bench [--json PATH]
//           [--group N] [--quick]
#include "median.hpp"

#include "fieldsync/mpi/communicatorHierarchy.hpp"
#include "fieldsync/mpi/mpiInit.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace
{
using fieldsync_bench::median;
namespace fm = fieldsync::mpi;

/** The slowest rank's time of one allreduce of @p data by @p algorithm. */
double timeOne(const fm::CommunicatorHierarchy& h, std::vector<double>& data, fm::Algorithm a)
{
    const MPI_Comm comm = h.full(h.level()).comm();
    fm::barrier(comm);
    const double start = MPI_Wtime();
    h.allReduce(data, fm::ReduceOp::Sum, a);
    double elapsed = MPI_Wtime() - start;
    fm::allReduce(elapsed, fm::ReduceOp::Max, comm);
    return elapsed;
}

struct Row
{
    std::size_t bytes;           // per rank
    std::vector<double> seconds; // median per method
};

struct Options
{
    std::string jsonPath { "hierarchy_bench.json" };
    int group { 2 };
    bool quick { false };
};

Options parse(int argc, char** argv)
{
    Options o;
    for (int i = 1; i < argc; ++i)
    {
        const std::string arg = argv[i];
        if (arg == "--json" && i + 1 < argc)
        {
            o.jsonPath = argv[++i];
        }
        else if (arg == "--group" && i + 1 < argc)
        {
            o.group = std::max(1, std::stoi(argv[++i]));
        }
        else if (arg == "--quick")
        {
            o.quick = true;
        }
    }
    return o;
}

/** Median over @p rounds interleaved rounds of each method, per message size. */
std::vector<Row>
measure(const fm::CommunicatorHierarchy& h, const std::vector<fm::Algorithm>& methods, int rounds)
{
    std::vector<Row> rows;
    for (std::size_t bytes = 8; bytes <= (std::size_t { 4 } << 20); bytes *= 4)
    {
        std::vector<double> data(bytes / sizeof(double), 1.0);
        std::vector<std::vector<double>> times(methods.size());
        for (int round = 0; round < rounds; ++round)
        {
            for (std::size_t m = 0; m < methods.size(); ++m)
            {
                times[m].push_back(timeOne(h, data, methods[m]));
            }
        }
        Row row { bytes, {} };
        for (const auto& t : times)
        {
            row.seconds.push_back(median(t));
        }
        rows.push_back(row);
    }
    return rows;
}

void print(const std::vector<Row>& rows, const std::vector<fm::Algorithm>& methods)
{
    std::printf("%10s", "bytes");
    for (const auto m : methods)
    {
        std::printf(" %15s", fm::toString(m));
    }
    std::printf("\n");
    for (const Row& r : rows)
    {
        std::printf("%10zu", r.bytes);
        for (const double s : r.seconds)
        {
            std::printf(" %15.2f", s * 1e6);
        }
        std::printf("\n");
    }
}

void writeJson(
    const Options& o,
    int ranks,
    const std::vector<Row>& rows,
    const std::vector<fm::Algorithm>& methods
)
{
    std::ofstream json(o.jsonPath);
    json << "{\n  \"ranks\": " << ranks << ",\n  \"group\": " << o.group
         << ",\n  \"rounds\": " << (o.quick ? 3 : 11) << ",\n  \"rows\": [\n";
    for (std::size_t i = 0; i < rows.size(); ++i)
    {
        json << "    {\"bytes\": " << rows[i].bytes;
        for (std::size_t m = 0; m < methods.size(); ++m)
        {
            json << ", \"" << fm::toString(methods[m]) << "_s\": " << rows[i].seconds[m];
        }
        json << (i + 1 < rows.size() ? "},\n" : "}\n");
    }
    json << "  ]\n}\n";
}
} // namespace

int main(int argc, char** argv)
{
    fm::MPIInit init(argc, argv);
    fm::ensureKokkos(); // Kokkos now: this program makes Kokkos views itself
    const Options o = parse(argc, argv);
    const fm::MPIEnvironment world;
    fm::CommunicatorHierarchy h(world);
    h.pushCommunicator(std::to_string(world.rank() / o.group));
    std::vector<fm::Algorithm> methods { fm::Algorithm::Native,
                                         fm::Algorithm::Tree3Step,
                                         fm::Algorithm::NodeAware };
    if (h.isCartesian())
    {
        methods.push_back(fm::Algorithm::Cartesian2Step);
    }
    const int rounds = o.quick ? 3 : 11;
    const std::vector<Row> rows = measure(h, methods, rounds);
    if (world.rank() == 0)
    {
        std::printf(
            "hierarchy_bench: %d ranks, groups of %d (%s), median of %d interleaved rounds, "
            "slowest rank, microseconds\n",
            world.sizeRank(),
            o.group,
            h.isCartesian() ? "cartesian" : "tree",
            rounds
        );
        print(rows, methods);
        writeJson(o, world.sizeRank(), rows, methods);
    }
    return 0;
}
