// SPDX-License-Identifier: MIT
// pack_bench: the halo pack and unpack kernels against std::memcpy of the same bytes, on the
// send and receive lists HaloBuilder makes for a METIS-partitioned 3-D 7-point grid (the
// example's patterns), with 1 to 8 components (LayoutRight), and on synthetic lists of fixed run
// length (the threshold PackPlan::runsFrom, src/halo/packPlan.hpp, is chosen from that table).
// Per list: 'runs' packs by runs (halo::packRuns: a copy per run), 'gather' with the general
// indexed kernel (halo::pack), 'chosen' is what the Communicator uses. Interleaved rounds, median
// of
// --rounds (default 31; short rounds, so that the median skips the ones another process preempted),
// maximum over ranks; every packed buffer is checked against the truth. With --cold, every timed
// call starts with the field out of the caches (64 MiB written before it, not timed), as in a
// solver whose field was last touched a sweep ago.
//
// Usage: mpiexec -n 2 pack_bench [--json FILE] [--rounds N] [--cells 16384,131072,442368] [--cold]
#include "gridProblem.hpp"
#include "median.hpp"

#include "fieldsync/halo/indexRuns.hpp"
#include "fieldsync/halo/packKernels.hpp"
#include "fieldsync/mpi/mpiInit.hpp"
#include "fieldsync/partition/haloBuilder.hpp"

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace
{
using fieldsync::LocalIndex;
using fieldsync::halo::ReverseOp;
using fieldsync::halo::detail::IndexRuns;
using fieldsync_bench::median;
using Host = Kokkos::HostSpace;
/** @brief The engine's PackPlan::runsFrom (src/halo/packPlan.hpp, not public): 'chosen'. */
constexpr double chosenFrom { 4.0 };
using Field = Kokkos::View<double**, Kokkos::LayoutRight, Host>;
using Values = Kokkos::View<double*, Host>;
template<typename T>
using HostArray = Kokkos::View<const T*, Host, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

/** @brief One list timed: what it is, its bytes and analysis, the median times. */
struct Row
{
    std::string what;                                 /**< pattern and list */
    std::size_t components { 1 };                     /**< values per cell */
    std::size_t bytes { 0 };                          /**< packed bytes */
    double meanRun { 0 };                             /**< cells per run */
    bool runs { false };                              /**< the Communicator packs it by runs */
    double memcpyS { 0 }, runsS { 0 }, gatherS { 0 }; /**< pack: median seconds */
    double unRunsS { 0 }, unGatherS { 0 };            /**< unpack: median seconds */
};

double now()
{
    return MPI_Wtime();
}

/** @brief Whether each timed call starts with cold caches (--cold). */
bool coldCaches { false };

/** @brief Pushes the field and buffers out of the caches: writes 64 MiB (more than the L3). */
void evictCaches()
{
    static std::vector<unsigned char> junk(std::size_t { 64 } << 20);
    for (std::size_t i = 0; i < junk.size(); i += 64)
    {
        ++junk[i];
    }
    asm volatile("" : : "r"(junk.data()) : "memory");
}

/** @brief The value of component @p c of local cell @p i (the truth the buffers are checked
 * against). */
double valueOf(std::size_t i, std::size_t c)
{
    return static_cast<double>(i) * 8.0 + static_cast<double>(c);
}

/** @brief Times pack and unpack of the list @p list (one neighbour) with @p comps components. */
Row timeList(const std::vector<LocalIndex>& list, std::size_t cells, std::size_t comps, int rounds)
{
    const std::vector<std::size_t> offsets { 0, list.size() };
    const IndexRuns runs(list, offsets);
    const HostArray<LocalIndex> idx(list.data(), list.size());
    const HostArray<LocalIndex> first(runs.first().data(), runs.runCount());
    const HostArray<std::size_t> at(runs.at().data(), runs.runCount() + 1);
    Field field("field", cells, comps);
    for (std::size_t i = 0; i < cells; ++i)
        for (std::size_t c = 0; c < comps; ++c)
            field(i, c) = valueOf(i, c);
    Field target("target", cells, comps);
    const std::size_t n = list.size() * comps;
    Values buffer("buffer", n), copy("copy", n);
    Row row;
    row.components = comps;
    row.bytes = n * sizeof(double);
    row.meanRun = runs.meanRunLength(0);
    row.runs = runs.meanRunLength(0) >= chosenFrom;
    const int reps = static_cast<int>(std::clamp<std::size_t>(
        (std::size_t { 1 } << 20) / std::max<std::size_t>(row.bytes, 1), 1, 200
    ));
    std::vector<double> t[5];
    const auto timed = [&](int method, auto&& fn)
    {
        const int calls = coldCaches ? 1 : reps;
        if (coldCaches)
        {
            evictCaches();
        }
        const double start = now();
        for (int r = 0; r < calls; ++r)
        {
            fn();
            asm volatile("" : : : "memory");
        }
        t[method].push_back((now() - start) / calls);
    };
    fieldsync_bench::interleaved(
        rounds,
        5,
        [&](int, int method)
        {
            switch (method)
            {
            case 0:
                timed(0, [&] { std::memcpy(copy.data(), field.data(), row.bytes); });
                break;
            case 1:
                timed(
                    1,
                    [&] {
                        fieldsync::halo::packRuns(
                            field, buffer, first, at, 0, runs.runCount(), comps, 0
                        );
                    }
                );
                break;
            case 2:
                timed(
                    2, [&] { fieldsync::halo::pack(field, buffer, idx, 0, list.size(), comps, 0); }
                );
                break;
            case 3:
                timed(
                    3,
                    [&]
                    {
                        fieldsync::halo::unpackRuns(
                            target,
                            buffer,
                            first,
                            at,
                            0,
                            runs.runCount(),
                            comps,
                            0,
                            ReverseOp::Replace
                        );
                    }
                );
                break;
            default:
                timed(
                    4,
                    [&] {
                        fieldsync::halo::unpack(
                            target, buffer, idx, 0, list.size(), comps, 0, ReverseOp::Replace
                        );
                    }
                );
            }
        }
    );
    // the truth: the buffer holds the listed cells' values, the target the same cells
    fieldsync::halo::packRuns(field, buffer, first, at, 0, runs.runCount(), comps, 0);
    std::size_t wrong { 0 };
    for (std::size_t i = 0; i < list.size(); ++i)
        for (std::size_t c = 0; c < comps; ++c)
        {
            const auto cell = static_cast<std::size_t>(list[i]);
            wrong +=
                buffer(i * comps + c) == valueOf(cell, c) && target(cell, c) == valueOf(cell, c)
                    ? 0
                    : 1;
        }
    if (wrong != 0)
    {
        std::fprintf(stderr, "pack_bench: %zu wrong values\n", wrong);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    const auto m = fieldsync_bench::maxOverRanks(
        { median(t[0]), median(t[1]), median(t[2]), median(t[3]), median(t[4]) }
    );
    row.memcpyS = m[0];
    row.runsS = m[1];
    row.gatherS = m[2];
    row.unRunsS = m[3];
    row.unGatherS = m[4];
    return row;
}

/** @brief The longest send and receive lists of this rank on a METIS 3-D grid of @p cells per rank.
 */
std::vector<std::vector<LocalIndex>>
metisLists(const fieldsync::mpi::MPIEnvironment& env, long cells, std::size_t& nLocal)
{
    const int side {
        static_cast<int>(std::lround(std::cbrt(static_cast<double>(cells) * env.sizeRank())))
    };
    const auto problem = fieldsync_bench::makeGridProblem(3, side, env.rank(), env.sizeRank());
    const fieldsync::partition::HaloBuilder builder(env);
    const auto layout = builder.build(problem.owned, problem.neighbourOwners);
    nLocal = layout.globalIds().size();
    std::vector<std::vector<LocalIndex>> lists;
    for (const auto* map : { &layout.sendMap(), &layout.receiveMap() })
    {
        std::size_t best { 0 };
        for (std::size_t k = 0; k < map->neighbourCount(); ++k)
        {
            best = map->offsets()[k + 1] - map->offsets()[k] >
                           map->offsets()[best + 1] - map->offsets()[best]
                       ? k
                       : best;
        }
        lists.emplace_back(
            map->indices().begin() + static_cast<std::ptrdiff_t>(map->offsets()[best]),
            map->indices().begin() + static_cast<std::ptrdiff_t>(map->offsets()[best + 1])
        );
    }
    return lists;
}

/** @brief Runs of @p length cells (the last maybe shorter) covering @p cells cells, in random
 * order. */
std::vector<LocalIndex> fixedRuns(std::size_t cells, std::size_t length)
{
    std::vector<std::size_t> starts;
    for (std::size_t s = 0; s < cells; s += 2 * length) // gaps between runs: never merged
    {
        starts.push_back(s);
    }
    std::shuffle(starts.begin(), starts.end(), std::mt19937 { 7 });
    std::vector<LocalIndex> list;
    for (const std::size_t s : starts)
        for (std::size_t j = 0; j < length && s + j < cells; ++j)
            list.push_back(static_cast<LocalIndex>(s + j));
    return list;
}
} // namespace

int main(int argc, char** argv)
{
    fieldsync::mpi::MPIInit init(argc, argv);
    fieldsync::mpi::ensureKokkos(); // Kokkos now: this program makes Kokkos views itself
    std::string jsonPath { "pack_bench.json" };
    int rounds { 31 };
    std::vector<long> sizes { 16384, 131072, 442368 };
    for (int i = 1; i < argc; ++i)
    {
        const std::string arg = argv[i];
        if (arg == "--json" && i + 1 < argc)
            jsonPath = argv[++i];
        else if (arg == "--cold")
            coldCaches = true;
        else if (arg == "--rounds" && i + 1 < argc)
            rounds = std::max(1, std::stoi(argv[++i]));
        else if (arg == "--cells" && i + 1 < argc)
        {
            sizes.clear();
            std::stringstream list(argv[++i]);
            for (std::string s; std::getline(list, s, ',');)
                sizes.push_back(std::stol(s));
        }
    }
    const fieldsync::mpi::MPIEnvironment world;
    std::vector<Row> rows;
    for (const long cells : sizes)
    {
        std::size_t nLocal { 0 };
        const auto lists = metisLists(world, cells, nLocal);
        for (std::size_t l = 0; l < lists.size(); ++l)
            for (const std::size_t comps : { 1, 2, 4, 8 })
            {
                rows.push_back(timeList(lists[l], nLocal, comps, rounds));
                rows.back().what = std::string("metis3d ")
                                       .append(std::to_string(cells))
                                       .append(l == 0 ? " send" : " recv");
            }
    }
    for (const std::size_t length : { 1, 2, 3, 4, 6, 8, 16, 64 })
        for (const std::size_t comps : { 1, 8 })
        {
            const std::size_t cells =
                (std::size_t { 256 } << 10) / comps / sizeof(double); // 256 KiB
            rows.push_back(timeList(fixedRuns(2 * cells, length), 2 * cells, comps, rounds));
            rows.back().what = std::string("runs of ").append(std::to_string(length));
        }
    if (world.rank() == 0)
    {
        std::printf(
            "pack_bench: %d ranks, median of %d interleaved rounds, max over ranks, %s caches; "
            "speed as a fraction of memcpy of the same bytes (1 = memcpy's speed)\n",
            world.sizeRank(),
            rounds,
            coldCaches ? "cold" : "warm"
        );
        std::printf(
            "%-22s %5s %9s %7s %6s %10s %8s %8s %8s %9s %9s\n",
            "list",
            "comps",
            "bytes",
            "run",
            "form",
            "memcpy us",
            "runs",
            "gather",
            "chosen",
            "unp.runs",
            "unp.gath"
        );
        for (const Row& r : rows)
        {
            const double chosen = r.runs ? r.runsS : r.gatherS;
            std::printf(
                "%-22s %5zu %9zu %7.1f %6s %10.2f %8.2f %8.2f %8.2f %9.2f %9.2f\n",
                r.what.c_str(),
                r.components,
                r.bytes,
                r.meanRun,
                r.runs ? "runs" : "gather",
                r.memcpyS * 1e6,
                r.memcpyS / r.runsS,
                r.memcpyS / r.gatherS,
                r.memcpyS / chosen,
                r.memcpyS / r.unRunsS,
                r.memcpyS / r.unGatherS
            );
        }
        std::ofstream json(jsonPath);
        json << "{\n  \"benchmark\": \"pack_bench\",\n  \"ranks\": " << world.sizeRank()
             << ",\n  \"cold\": " << (coldCaches ? "true" : "false") << ",\n  \"rows\": [\n";
        for (std::size_t i = 0; i < rows.size(); ++i)
        {
            const Row& r = rows[i];
            json << "    {\"list\": \"" << r.what << "\", \"components\": " << r.components
                 << ", \"bytes\": " << r.bytes << ", \"mean_run\": " << r.meanRun
                 << ", \"runs\": " << (r.runs ? "true" : "false") << ", \"memcpy_s\": " << r.memcpyS
                 << ", \"runs_s\": " << r.runsS << ", \"gather_s\": " << r.gatherS
                 << ", \"unpack_runs_s\": " << r.unRunsS << ", \"unpack_gather_s\": " << r.unGatherS
                 << "}" << (i + 1 < rows.size() ? "," : "") << "\n";
        }
        json << "  ]\n}\n";
    }
    return 0;
}
