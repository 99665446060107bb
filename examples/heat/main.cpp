// SPDX-License-Identifier: MIT
// fieldsync-heat: explicit finite-volume diffusion on an unstructured mesh (2-D triangles or
// 3-D hexahedra / tetrahedra) generated in parallel, split over the MPI ranks with METIS or
// PT-Scotch, ghost cells kept in step by fieldsync's Communicator, and checked at the end
// against a serial run of the same scheme (bitwise).
//
//   mpiexec -n 4 fieldsync-heat [options]      (fieldsync-heat --help lists them)
#include "gmshMesh.hpp"
#include "gridMesh.hpp"
#include "heatSolver.hpp"
#include "meshOptions.hpp"
#include "triMesh.hpp"

#include "fieldsync/config.hpp"
#include "fieldsync/core/error.hpp"
#include "fieldsync/mpi/collectives.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"
#include "fieldsync/mpi/mpiInit.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

using namespace fieldsync;
using namespace fieldsync::partition;
using fieldsync::heat::LoadOptions;

namespace
{

/** @brief The command line; what CLI11 parses into. */
struct Arguments
{
    heat::MeshOptions mesh;                 /**< the mesh and the partitioner */
    std::string vtk;                        /**< VTK output folder */
    bool verify { true };                   /**< compare with a serial run */
    std::string save;                       /**< write the final field here (raw doubles) */
    std::string compare;                    /**< compare the final field with this --save file */
    std::string rebalanceMethod { "hsfc" }; /**< graph, hsfc or rcb */
    heat::HeatOptions options;              /**< the solver's settings */
};

/** @brief The options of the moving load and the rebalancing. */
void declareLoadOptions(CLI::App& app, Arguments& a)
{
    LoadOptions& load { a.options.load };
    app.add_option(
           "--load-extra",
           load.extra,
           "moving load: cells inside a disc moving along x do this many extra sub-steps of "
           "dummy work per step (0: no load)"
    )
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    app.add_option("--load-radius", load.radius, "radius of the moving disc")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    app.add_option("--rebalance-interval", load.interval, "steps between imbalance measurements")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    std::string rebalance { "rebalance with Zoltan whenever the predicted gain over the horizon "
                            "exceeds the predicted cost (partition::RebalanceTrigger)" };
    rebalance.append(FIELDSYNC_HAVE_ZOLTAN ? "" : "; this build has no Zoltan");
    app.add_flag("--rebalance", load.rebalance, rebalance);
    app.add_option(
           "--rebalance-horizon",
           load.horizon,
           "steps the gain of a rebalance is predicted over (0: those in which the disc moves by "
           "its radius, extended while the imbalance persists)"
    )
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    app.add_option(
           "--rebalance-cost",
           load.costEstimate,
           "predicted cost of a rebalance until one is measured, seconds (< 0: the time of the "
           "set-up steps a rebalance repeats)"
    )
        ->capture_default_str();
    app.add_option(
           "--rebalance-cores",
           load.nodeCores,
           "cores the ranks of one node may run on, for the predicted gain (0: the union of their "
           "CPU affinity masks; ranks that share cores gain only from a node's excess work)"
    )
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    app.add_option(
           "--rebalance-method",
           a.rebalanceMethod,
           "Zoltan method: hsfc (space-filling curve), rcb (coordinate bisection) or graph (PHG)"
    )
        ->check(CLI::IsMember({ "hsfc", "rcb", "graph" }))
        ->capture_default_str();
}

/** @brief The options of fieldsync-heat, declared once for parsing and for --help. */
void declareOptions(CLI::App& app, Arguments& a)
{
    a.mesh.declare(app);
    app.add_option("--steps", a.options.steps, "time steps")->capture_default_str();
    app.add_option("--check-every", a.options.checkEvery, "global check every K steps (0: never)")
        ->capture_default_str();
    app.add_option("--vtk", a.vtk, "write heat.pvtu and one .vtu per rank into this folder");
    app.add_option(
        "--stats", a.options.statsFile, "write the halo exchange telemetry of every rank (JSON)"
    );
    app.add_option(
           "--progress-chunk",
           a.options.progressChunk,
           "interior cells per chunk, with Communicator::progress() between chunks (0: one update)"
    )
        ->capture_default_str();
    app.add_flag_function(
        "--no-inplace",
        [&a](std::int64_t) { a.options.inPlace = false; },
        "packed halo receives instead of receiving straight into the field"
    );
    app.add_flag_function(
        "--no-verify", [&a](std::int64_t) { a.verify = false; }, "skip the serial comparison"
    );
    app.add_option(
        "--save", a.save, "write the final field, in global cell order, as raw doubles (rank 0)"
    );
    app.add_option(
           "--compare",
           a.compare,
           "compare the final field bitwise with a --save file (for example a CPU run's, when "
           "this run is on a GPU)"
    )
        ->check(CLI::ExistingFile);
    declareLoadOptions(app, a);
    app.footer(
        "Kokkos options (--kokkos-...) are passed to Kokkos. Run under mpiexec, for example\n"
        "  mpiexec -n 4 fieldsync-heat --shape hex --partitioner ptscotch"
    );
}

/** @brief Fills in the sizes left at 0 and the partitioner kind. */
void complete(Arguments& a)
{
    a.mesh.complete("fieldsync-heat");
    a.options.partitioner = a.mesh.partitionerKind();
    a.options.load.method = a.rebalanceMethod == "graph" ? partition::RebalanceMethod::Graph
                            : a.rebalanceMethod == "rcb" ? partition::RebalanceMethod::Rcb
                                                         : partition::RebalanceMethod::Hsfc;
    FIELDSYNC_CHECK(
        FIELDSYNC_HAVE_ZOLTAN || !a.options.load.rebalance,
        "fieldsync-heat: --rebalance: this build has no Zoltan "
        "(FIELDSYNC_WITH_ZOLTAN=OFF)"
    );
}

/**
 * @brief Parses the command line before MPI and Kokkos start (so --help prints only this
 * program's options). Returns the exit code when the program should stop (help: 0, bad
 * option: 106, CLI11's code), or -1 to go on.
 */
int parse(int argc, char** argv, Arguments& a)
{
    a.options.steps = 2000;
    a.options.checkEvery = 500;
    CLI::App app { "fieldsync-heat: explicit finite-volume diffusion on an unstructured mesh "
                   "made in parallel, halo kept by fieldsync, checked against a serial run "
                   "(bitwise)" };
    declareOptions(app, a);
    const int stop { heat::parseCommandLine(app, argc, argv) };
    if (stop < 0)
    {
        complete(a);
    }
    return stop;
}

/** @brief One .vtu per rank (its owned cells, with rank, global id and u) and a .pvtu on 0. */
void writeVtk(
    const std::string& dir,
    const mpi::MPIEnvironment& env,
    const heat::MeshPiece& piece,
    const std::vector<double>& u
)
{
    std::filesystem::create_directories(dir);
    std::string name { "heat_" };
    name.append(std::to_string(env.rank())).append(".vtu");
    std::ofstream out(dir + "/" + name);
    FIELDSYNC_CHECK(out.good(), "fieldsync-heat: cannot write " + dir + "/" + name);
    out << "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"0.1\">\n"
        << "<UnstructuredGrid><Piece NumberOfPoints=\"" << piece.nodePoints().size()
        << "\" NumberOfCells=\"" << piece.nCells()
        << "\">\n<Points><DataArray type=\"Float64\" NumberOfComponents=\"3\" "
        << "format=\"ascii\">\n";
    for (const heat::Point& p : piece.nodePoints())
    {
        out << p[0] << ' ' << p[1] << ' ' << p[2] << '\n';
    }
    out << "</DataArray></Points>\n<Cells><DataArray type=\"Int64\" Name=\"connectivity\" "
        << "format=\"ascii\">\n";
    for (std::size_t i { 0 }; i < piece.nCells(); ++i)
    {
        for (const std::uint32_t n : piece.cellNodes(i))
        {
            out << n << ' ';
        }
        out << '\n';
    }
    out << "</DataArray><DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">\n";
    std::size_t offset { 0 };
    for (std::size_t i { 0 }; i < piece.nCells(); ++i)
    {
        offset += piece.cellNodes(i).size();
        out << offset << '\n';
    }
    out << "</DataArray><DataArray type=\"UInt8\" Name=\"types\" format=\"ascii\">\n";
    for (std::size_t i { 0 }; i < piece.nCells(); ++i)
    {
        out << heat::vtkType(piece.shape(i)) << '\n';
    }
    out << "</DataArray></Cells>\n<CellData Scalars=\"rank\">\n"
        << "<DataArray type=\"Int32\" Name=\"rank\" format=\"ascii\">\n";
    for (std::size_t i { 0 }; i < piece.nCells(); ++i)
    {
        out << env.rank() << '\n';
    }
    out << "</DataArray><DataArray type=\"Int64\" Name=\"globalId\" format=\"ascii\">\n";
    for (const GlobalIndex id : piece.ids())
    {
        out << id << '\n';
    }
    out << "</DataArray><DataArray type=\"Float64\" Name=\"u\" format=\"ascii\">\n";
    for (const double v : u)
    {
        out << v << '\n';
    }
    out << "</DataArray></CellData>\n</Piece></UnstructuredGrid>\n</VTKFile>\n";
    if (env.rank() == 0)
    {
        std::ofstream p(dir + "/heat.pvtu");
        p << "<?xml version=\"1.0\"?>\n<VTKFile type=\"PUnstructuredGrid\" version=\"0.1\">\n"
          << "<PUnstructuredGrid GhostLevel=\"0\">\n<PPoints><PDataArray type=\"Float64\" "
          << "NumberOfComponents=\"3\"/></PPoints>\n<PCellData Scalars=\"rank\">\n"
          << "<PDataArray type=\"Int32\" Name=\"rank\"/><PDataArray type=\"Int64\" "
          << "Name=\"globalId\"/><PDataArray type=\"Float64\" Name=\"u\"/>\n</PCellData>\n";
        for (int r { 0 }; r < env.sizeRank(); ++r)
        {
            p << "<Piece Source=\"heat_" << r << ".vtu\"/>\n";
        }
        p << "</PUnstructuredGrid>\n</VTKFile>\n";
    }
}

/**
 * @brief Compares @p field with @p reference bit for bit and prints the verdict naming
 * @p against; returns 0 when identical, 1 otherwise (sizes differing included).
 */
int compareBitwise(
    const std::vector<double>& field,
    const std::vector<double>& reference,
    const std::string& against
)
{
    if (field.size() != reference.size())
    {
        std::printf(
            "verification against %s: %zu cells here, %zu there -> FAILED\n",
            against.c_str(),
            field.size(),
            reference.size()
        );
        return 1;
    }
    double maxDiff { 0.0 };
    std::size_t differing { 0 };
    for (std::size_t c { 0 }; c < reference.size(); ++c)
    {
        const double a { field[c] };
        const double b { reference[c] };
        if (std::memcmp(&a, &b, sizeof(double)) != 0)
        {
            ++differing;
            maxDiff = std::max(maxDiff, std::isnan(a) ? INFINITY : std::abs(a - b));
        }
    }
    std::printf(
        "verification against %s: max |difference| = %.3g, %zu of %zu cells differ -> %s\n",
        against.c_str(),
        maxDiff,
        differing,
        reference.size(),
        differing == 0 ? "BITWISE IDENTICAL" : "FAILED"
    );
    return differing == 0 ? 0 : 1;
}

/** @brief Writes @p field to @p path as raw doubles (this machine's byte order). */
void writeField(const std::string& path, const std::vector<double>& field)
{
    std::ofstream out(path, std::ios::binary);
    out.write(
        reinterpret_cast<const char*>(field.data()),
        static_cast<std::streamsize>(field.size() * sizeof(double))
    );
    FIELDSYNC_CHECK(out.good(), "fieldsync-heat --save: cannot write " + path);
    std::printf("wrote the final field (%zu cells) to %s\n", field.size(), path.c_str());
}

/** @brief The raw doubles of a --save file. */
std::vector<double> readField(const std::string& path)
{
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    FIELDSYNC_CHECK(in.good(), "fieldsync-heat --compare: cannot read " + path);
    const auto bytes { static_cast<std::size_t>(in.tellg()) };
    FIELDSYNC_CHECK(
        bytes % sizeof(double) == 0,
        "fieldsync-heat --compare: " + path + " holds " + std::to_string(bytes) +
            " bytes, not a whole number of doubles"
    );
    std::vector<double> field(bytes / sizeof(double));
    in.seekg(0);
    in.read(reinterpret_cast<char*>(field.data()), static_cast<std::streamsize>(bytes));
    return field;
}

/** @brief Prints the per-rank table and the overall line (rank 0). */
void summary(const mpi::MPIEnvironment& env, const heat::DistributedRun& run)
{
    const auto& s = run.stats;
    const auto& layout = run.layout;
    const double n { std::max(1, s.exchanges) * 1.0 };
    const double hidden { s.exchanges > 0 ? s.hiddenExchanges / n : 0.0 };
    constexpr int fields { 14 };
    const double mine[fields] {
        static_cast<double>(layout.nOwned()),
        static_cast<double>(layout.nGhost()),
        static_cast<double>(layout.sendMap().neighbourCount()),
        static_cast<double>(8 * (layout.sendMap().totalSize() + layout.receiveMap().totalSize())),
        s.compute,
        s.pack,
        s.wait,
        s.unpack,
        hidden,
        s.total,
        static_cast<double>(run.peakKiB),
        s.peerLate,
        static_cast<double>(s.hideableExchanges),
        static_cast<double>(s.hiddenHideable),
    };
    std::vector<double> all(
        env.rank() == 0 ? static_cast<std::size_t>(fields * env.sizeRank()) : 0
    );
    FIELDSYNC_MPI(
        MPI_Gather(mine, fields, MPI_DOUBLE, all.data(), fields, MPI_DOUBLE, 0, env.comm())
    );
    if (env.rank() != 0)
    {
        return;
    }
    std::printf(
        "\nper rank (times summed over %d steps, bytes are sent+received per exchange):\n"
        "  rank   cells  ghosts  nbrs  bytes/exch  compute[s]  pack[s]  wait[s]  unpack[s]  "
        "hidden  peerLate[s]  transport hidden\n",
        s.exchanges
    );
    double sum[fields] {};
    double maximum[fields] {};
    double minimum10 { all[10] };
    for (int r { 0 }; r < env.sizeRank(); ++r)
    {
        const double* v { &all[static_cast<std::size_t>(r * fields)] };
        std::printf(
            "  %4d %7.0f %7.0f %5.0f %11.0f %11.3f %8.3f %8.3f %10.3f %6.0f%% %12.3f %6.0f%% of "
            "%.0f\n",
            r,
            v[0],
            v[1],
            v[2],
            v[3],
            v[4],
            v[5],
            v[6],
            v[7],
            100.0 * v[8],
            v[11],
            v[12] > 0 ? 100.0 * v[13] / v[12] : 0.0,
            v[12]
        );
        for (int f { 0 }; f < fields; ++f)
        {
            sum[f] += v[f];
            maximum[f] = std::max(maximum[f], v[f]);
        }
        minimum10 = std::min(minimum10, v[10]);
    }
    const double exchange { sum[5] + sum[6] + sum[7] };
    std::printf(
        "overall: %.0f cells, %.0f ghosts, %.0f bytes per exchange (all ranks), loop %.3f s "
        "(slowest rank); exchange time pack %.0f%% / wait %.0f%% / unpack %.0f%%; "
        "exchanges complete when the interior update ended (hidden): %.0f%% (mean over ranks)\n",
        sum[0],
        sum[1],
        sum[3],
        maximum[9],
        exchange > 0 ? 100.0 * sum[5] / exchange : 0.0,
        exchange > 0 ? 100.0 * sum[6] / exchange : 0.0,
        exchange > 0 ? 100.0 * sum[7] / exchange : 0.0,
        100.0 * sum[8] / env.sizeRank()
    );
    std::printf(
        "overlap: of the wait, %.3f s (all ranks) was for peers that had not posted yet when the "
        "interior update ended (load imbalance); transport hidden in %.0f%% of the %.0f exchanges "
        "whose peers had posted at least one exchange time before it ended\n",
        sum[11],
        sum[12] > 0 ? 100.0 * sum[13] / sum[12] : 0.0,
        sum[12]
    );
    std::printf(
        "time loop: %.3f s (slowest rank), %d rebalances costing %.3f s included\n",
        maximum[9],
        run.rebalances,
        run.rebalanceSeconds
    );
    std::printf(
        "partition%s: edge cut %lld faces, imbalance %.4f (largest / mean owned cells)\n"
        "peak resident memory per rank (VmHWM after the time loop): max %.1f MiB, mean %.1f MiB, "
        "min %.1f MiB\n",
        run.rebalances > 0 ? (" after " + std::to_string(run.rebalances) + " rebalances").c_str()
                           : "",
        static_cast<long long>(run.edgeCut),
        run.imbalance,
        maximum[10] / 1024.0,
        sum[10] / 1024.0 / env.sizeRank(),
        minimum10 / 1024.0
    );
}

int run(const Arguments& args)
{
    const mpi::MPIEnvironment env;
    // each rank makes (or reads) only its own cells
    const std::unique_ptr<heat::MeshSource> source { args.mesh.source(env) };
    double readMiB { static_cast<double>(heat::peakResidentKiB()) / 1024.0 };
    mpi::allReduce(readMiB, mpi::ReduceOp::Max, env.comm());
    if (env.rank() == 0)
    {
        std::printf(
            "fieldsync-heat: explicit FV diffusion, %lld cells (%s), %d steps, %d ranks, "
            "partitioner %s, halo receive in place: %s\n",
            static_cast<long long>(source->nCells()),
            source->describe().c_str(),
            args.options.steps,
            env.sizeRank(),
            args.mesh.partitioner.c_str(),
            args.options.inPlace ? "on" : "off"
        );
        std::printf("mesh made: peak resident memory per rank max %.1f MiB\n", readMiB);
    }
    heat::HeatOptions options { args.options };
    options.verbose = true;
    options.gather = args.verify || !args.save.empty() || !args.compare.empty();
    const heat::DistributedRun result { heat::solveDistributed(env, *source, options) };
    summary(env, result);
    if (!args.vtk.empty())
    {
        writeVtk(args.vtk, env, result.piece, result.owned);
        if (env.rank() == 0)
        {
            std::printf(
                "wrote %s/heat.pvtu (+ one .vtu per rank, cell fields rank, globalId, u)\n",
                args.vtk.c_str()
            );
        }
    }
    int status { 0 };
    if (env.rank() == 0)
    {
        if (args.verify)
        {
            // the serial reference reads the whole mesh on this rank (GmshMesh::piece() is
            // collective), after the run's memory was measured
            const std::unique_ptr<heat::MeshSource> whole {
                dynamic_cast<const heat::GmshMesh*>(source.get()) != nullptr
                    ? std::make_unique<heat::TriMesh>(heat::TriMesh::readGmsh(args.mesh.file))
                    : nullptr
            };
            const std::vector<double> serial {
                heat::solveSerial(whole ? *whole : *source, result.dt, options)
            };
            status |= compareBitwise(result.gathered, serial, "a serial run");
        }
        if (!args.compare.empty())
        {
            status |= compareBitwise(result.gathered, readField(args.compare), args.compare);
        }
        if (!args.save.empty())
        {
            writeField(args.save, result.gathered);
        }
    }
    FIELDSYNC_MPI(MPI_Bcast(&status, 1, MPI_INT, 0, env.comm()));
    return status;
}

} // namespace

int main(int argc, char** argv)
{
    Arguments args;
    return heat::exampleMain(
        argc, argv, [&] { return parse(argc, argv, args); }, [&] { return run(args); }
    );
}
