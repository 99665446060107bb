// SPDX-License-Identifier: MIT
// backend_bench: the Communicator's back ends, and Auto's choice, on the example solver's
// pattern (fieldsync-heat's generated triangle mesh, partitioned as the solver does).
//
// For each mesh size and number of components: one Communicator per back end on the same maps,
// committed with BackEnd::PointToPoint, BackEnd::NeighbourCollective, BackEnd::PersistentNeighbour
// (where the MPI library has MPI_Neighbor_alltoallv_init; a column of "-" elsewhere) and
// BackEnd::Auto. Interleaved batch by batch (A, B, C, D, A, B, ...) after a warm-up, each batch
// preceded by a barrier; the time per exchange is the maximum over ranks; the median of 11 rounds
// is reported. Every ghost is checked against its global id before timing. Prints a table and
// writes JSON (--json PATH).
#include "gridMesh.hpp"
#include "heatSolver.hpp"

#include "fieldsync/halo/communicator.hpp"
#include "fieldsync/mpi/collectives.hpp"
#include "fieldsync/mpi/mpiInit.hpp"
#include "fieldsync/partition/distributedGraph.hpp"
#include "fieldsync/partition/haloBuilder.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

namespace fh = fieldsync::halo;
namespace fm = fieldsync::mpi;
namespace fp = fieldsync::partition;

namespace
{
using Field = Kokkos::View<double**, Kokkos::LayoutRight>;

struct Row
{
    int nx { 0 };
    int components { 0 };
    double ghostBytes { 0 };
    double seconds[4] {}; /**< p2p, neighbour, persistent (0: unavailable), auto */
    fh::BackEnd autoChoice { fh::BackEnd::PointToPoint };
};

/** Owned cells hold their global id per component, ghosts -1. */
void fill(Field& field, const fp::HaloLayout& layout)
{
    auto host = Kokkos::create_mirror_view(field);
    for (std::size_t i = 0; i < layout.nLocal(); ++i)
    {
        for (std::size_t c = 0; c < field.extent(1); ++c)
        {
            host(i, c) = i < layout.nOwned() ? static_cast<double>(layout.globalIds()[i]) +
                                                   0.25 * static_cast<double>(c)
                                             : -1.0;
        }
    }
    Kokkos::deep_copy(field, host);
}

bool correct(const Field& field, const fp::HaloLayout& layout)
{
    auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), field);
    for (std::size_t i = 0; i < layout.nLocal(); ++i)
    {
        for (std::size_t c = 0; c < field.extent(1); ++c)
        {
            if (host(i, c) !=
                static_cast<double>(layout.globalIds()[i]) + 0.25 * static_cast<double>(c))
            {
                return false;
            }
        }
    }
    return true;
}

double batchSeconds(fh::Communicator& comm, Field& field, int exchanges, MPI_Comm world)
{
    MPI_Barrier(world);
    const auto t0 = std::chrono::steady_clock::now();
    for (int e = 0; e < exchanges; ++e)
    {
        comm.startComm(field, "bench");
        comm.finaliseComm(field, "bench");
    }
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / exchanges;
    fm::allReduce(seconds, fm::ReduceOp::Max, world);
    return seconds;
}

Row measure(const fm::MPIEnvironment& env, int nx, int components)
{
    // the whole mesh's graph on rank 0 (the benchmark measures exchanges, not set-up)
    const auto mesh = fieldsync::heat::GridMesh::triangles(nx, nx, 7);
    std::vector<fp::GlobalIndex> all(env.rank() == 0 ? static_cast<std::size_t>(mesh.nCells()) : 0);
    std::iota(all.begin(), all.end(), fp::GlobalIndex { 0 });
    const fp::CellGraph graph { env.rank() == 0 ? mesh.piece(all).graph() : fp::CellGraph {} };
    const auto piece = fp::DistributedGraph::partitionAndScatter(env, graph, 0, 1);
    const fp::HaloLayout layout = fp::HaloBuilder(env, 1).build(piece.cells());
    Row row { nx, components };
    double ghosts = static_cast<double>(layout.nLocal() - layout.nOwned());
    fm::allReduce(ghosts, fm::ReduceOp::Max, env.comm());
    row.ghostBytes = ghosts * components * sizeof(double);
    std::vector<fh::BackEnd> backEnds { fh::BackEnd::PointToPoint,
                                        fh::BackEnd::NeighbourCollective };
    if (fh::persistentNeighbourAvailable())
    {
        backEnds.push_back(fh::BackEnd::PersistentNeighbour);
    }
    backEnds.push_back(fh::BackEnd::Auto);
    const int count = static_cast<int>(backEnds.size());
    std::vector<fh::Communicator> comms;
    std::vector<Field> fields;
    for (const auto b : backEnds)
    {
        comms.emplace_back(
            env, layout.sendMap(), layout.receiveMap(), fh::CommitOptions { .backEnd = b }
        );
        fields.emplace_back("field", layout.nLocal(), components);
        fill(fields.back(), layout);
        comms.back().startComm(fields.back(), "bench");
        comms.back().finaliseComm(fields.back(), "bench");
        if (!correct(fields.back(), layout))
        {
            throw fieldsync::Error(std::string("wrong ghost with back end ") + fh::toString(b));
        }
    }
    row.autoChoice = comms.back().backEnd();
    const int exchanges = row.ghostBytes < 65536 ? 200 : 40;
    std::vector<double> samples[4];
    for (int round = 0; round < 13; ++round)
    {
        for (int b = 0; b < count; ++b)
        {
            const double s = batchSeconds(
                comms[static_cast<std::size_t>(b)],
                fields[static_cast<std::size_t>(b)],
                exchanges,
                env.comm()
            );
            if (round >= 2)
            {
                samples[b].push_back(s);
            }
        }
    }
    for (int b = 0; b < count; ++b) // without the persistent one, Auto goes in column 3
    {
        std::sort(samples[b].begin(), samples[b].end());
        row.seconds[b == count - 1 ? 3 : b] = samples[b][samples[b].size() / 2];
    }
    return row;
}
} // namespace

int main(int argc, char** argv)
{
    fm::MPIInit init(argc, argv);
    fm::ensureKokkos(); // Kokkos now: this program makes Kokkos views itself
    const fm::MPIEnvironment env;
    std::string json;
    bool quick { false };
    for (int a = 1; a < argc; ++a)
    {
        const std::string arg { argv[a] };
        if (arg == "--json" && a + 1 < argc)
        {
            json = argv[++a];
        }
        quick = quick || arg == "--quick";
    }
    std::vector<Row> rows;
    for (const int nx : quick ? std::vector<int> { 40 } : std::vector<int> { 40, 160, 400 })
    {
        for (const int components : { 1, 5 })
        {
            rows.push_back(measure(env, nx, components));
        }
    }
    if (env.rank() == 0)
    {
        std::printf(
            "backend_bench: %d ranks, fieldsync-heat mesh (2 nx^2 triangles), median of 11 "
            "interleaved rounds, max over ranks\n%6s %5s %11s %9s %9s %9s %9s %19s %10s\n",
            env.sizeRank(),
            "nx",
            "comps",
            "ghostB/rank",
            "p2p us",
            "nbr us",
            "pnbr us",
            "auto us",
            "auto chose",
            "auto/best"
        );
        for (const Row& r : rows)
        {
            double best = std::min(r.seconds[0], r.seconds[1]);
            best = r.seconds[2] > 0 ? std::min(best, r.seconds[2]) : best;
            char persistentText[16] { "-" };
            if (r.seconds[2] > 0)
            {
                std::snprintf(persistentText, sizeof persistentText, "%.2f", r.seconds[2] * 1e6);
            }
            std::printf(
                "%6d %5d %11.0f %9.2f %9.2f %9s %9.2f %19s %10.3f\n",
                r.nx,
                r.components,
                r.ghostBytes,
                r.seconds[0] * 1e6,
                r.seconds[1] * 1e6,
                persistentText,
                r.seconds[3] * 1e6,
                fh::toString(r.autoChoice),
                r.seconds[3] / best
            );
        }
        if (!json.empty())
        {
            std::ofstream out(json);
            out << "[";
            for (std::size_t i = 0; i < rows.size(); ++i)
            {
                const Row& r = rows[i];
                out << (i ? ",\n" : "\n") << "{\"nx\": " << r.nx
                    << ", \"components\": " << r.components << ", \"ghost_bytes\": " << r.ghostBytes
                    << ", \"p2p_s\": " << r.seconds[0] << ", \"neighbour_s\": " << r.seconds[1]
                    << ", \"persistent_s\": " << r.seconds[2] << ", \"auto_s\": " << r.seconds[3]
                    << ", \"auto_choice\": \"" << fh::toString(r.autoChoice) << "\"}";
            }
            out << "\n]\n";
        }
    }
    return 0;
}
