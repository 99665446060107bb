// SPDX-License-Identifier: MIT
// fieldsync-heat: explicit finite-volume diffusion on an unstructured mesh (2-D triangles or
// 3-D hexahedra / tetrahedra) generated in parallel, split over the MPI ranks with METIS or
// PT-Scotch, ghost cells kept in step by fieldsync's Communicator, and checked at the end
// against a serial run of the same scheme (bitwise).
//
//   mpiexec -n 4 fieldsync-heat [--shape tri|hex|tet] [--nx N] [--ny N] [--nz N] [--seed S]
//                               [--mesh file.msh] [--partitioner metis|ptscotch|slab]
//                               [--steps S] [--check-every K] [--vtk DIR] [--no-inplace]
//                               [--no-verify]
#include "gridMesh.hpp"
#include "heatSolver.hpp"
#include "triMesh.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"
#include "fieldsync/mpi/mpiInit.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>

using namespace fieldsync;
using namespace fieldsync::partition;

namespace
{

struct Arguments
{
    int nx { 0 }; /**< 0: 400 for triangles, 40 for 3-D shapes */
    int ny { 0 }; /**< 0: as nx */
    int nz { 0 }; /**< 0: as nx (3-D shapes) */
    std::string shape { "tri" };
    std::string partitioner { "metis" };
    std::uint64_t seed { 2024 };
    std::string mesh;
    std::string vtk;
    bool verify { true };
    heat::HeatOptions options;
};

Arguments parse(int argc, char** argv)
{
    Arguments a;
    a.options.steps = 2000;
    a.options.checkEvery = 500;
    for (int i { 1 }; i < argc; ++i)
    {
        const std::string arg { argv[i] };
        const auto value = [&]() -> std::string
        {
            FIELDSYNC_CHECK(i + 1 < argc, "fieldsync-heat: " + arg + " needs a value");
            return argv[++i];
        };
        if (arg == "--nx")
            a.nx = std::stoi(value());
        else if (arg == "--ny")
            a.ny = std::stoi(value());
        else if (arg == "--nz")
            a.nz = std::stoi(value());
        else if (arg == "--shape")
            a.shape = value();
        else if (arg == "--partitioner")
            a.partitioner = value();
        else if (arg == "--steps")
            a.options.steps = std::stoi(value());
        else if (arg == "--check-every")
            a.options.checkEvery = std::stoi(value());
        else if (arg == "--seed")
            a.seed = std::stoull(value());
        else if (arg == "--mesh")
            a.mesh = value();
        else if (arg == "--vtk")
            a.vtk = value();
        else if (arg == "--no-inplace")
            a.options.inPlace = false;
        else if (arg == "--no-verify")
            a.verify = false;
        else
        {
            throw Error(
                "fieldsync-heat: unknown option '" + arg +
                "' (options: --shape --nx --ny --nz --seed --mesh --partitioner --steps "
                "--check-every --vtk --no-inplace --no-verify)"
            );
        }
    }
    FIELDSYNC_CHECK(
        a.shape == "tri" || a.shape == "hex" || a.shape == "tet",
        "fieldsync-heat: --shape must be tri, hex or tet, got '" + a.shape + "'"
    );
    if (a.partitioner == "metis")
        a.options.partitioner = heat::PartitionerKind::Metis;
    else if (a.partitioner == "ptscotch")
        a.options.partitioner = heat::PartitionerKind::PtScotch;
    else if (a.partitioner == "slab")
        a.options.partitioner = heat::PartitionerKind::Slab;
    else
        throw Error(
            "fieldsync-heat: --partitioner must be metis, ptscotch or slab, got '" + a.partitioner +
            "'"
        );
    a.nx = a.nx > 0 ? a.nx : (a.shape == "tri" ? 400 : 40);
    a.ny = a.ny > 0 ? a.ny : a.nx;
    a.nz = a.shape == "tri" ? 1 : (a.nz > 0 ? a.nz : a.nx);
    return a;
}

/** @brief The mesh the arguments ask for. */
std::unique_ptr<heat::MeshSource> makeSource(const Arguments& a)
{
    if (!a.mesh.empty())
    {
        return std::make_unique<heat::TriMesh>(heat::TriMesh::readGmsh(a.mesh));
    }
    const heat::CellShape shape { a.shape == "tri"   ? heat::CellShape::Triangle
                                  : a.shape == "hex" ? heat::CellShape::Hexahedron
                                                     : heat::CellShape::Tetrahedron };
    return std::make_unique<heat::GridMesh>(shape, a.nx, a.ny, a.nz, a.seed);
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
    std::map<std::int64_t, std::size_t> points;
    for (std::size_t i { 0 }; i < piece.nCells(); ++i)
    {
        for (const std::int64_t n : piece.nodes(i))
        {
            points.emplace(n, 0);
        }
    }
    std::size_t next { 0 };
    for (auto& entry : points)
    {
        entry.second = next++;
    }
    std::vector<heat::Point> coordinates(points.size());
    for (std::size_t i { 0 }; i < piece.nCells(); ++i)
    {
        for (std::size_t k { 0 }; k < piece.nodes(i).size(); ++k)
        {
            coordinates[points.at(piece.nodes(i)[k])] = piece.points(i)[k];
        }
    }
    std::string name { "heat_" };
    name.append(std::to_string(env.rank())).append(".vtu");
    std::ofstream out(dir + "/" + name);
    FIELDSYNC_CHECK(out.good(), "fieldsync-heat: cannot write " + dir + "/" + name);
    out << "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"0.1\">\n"
        << "<UnstructuredGrid><Piece NumberOfPoints=\"" << points.size() << "\" NumberOfCells=\""
        << piece.nCells() << "\">\n<Points><DataArray type=\"Float64\" NumberOfComponents=\"3\" "
        << "format=\"ascii\">\n";
    for (const heat::Point& p : coordinates)
    {
        out << p[0] << ' ' << p[1] << ' ' << p[2] << '\n';
    }
    out << "</DataArray></Points>\n<Cells><DataArray type=\"Int64\" Name=\"connectivity\" "
        << "format=\"ascii\">\n";
    for (std::size_t i { 0 }; i < piece.nCells(); ++i)
    {
        for (const std::int64_t n : piece.nodes(i))
        {
            out << points.at(n) << ' ';
        }
        out << '\n';
    }
    out << "</DataArray><DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">\n";
    std::size_t offset { 0 };
    for (std::size_t i { 0 }; i < piece.nCells(); ++i)
    {
        offset += piece.nodes(i).size();
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

/** @brief Prints the per-rank table and the overall line (rank 0). */
void summary(const mpi::MPIEnvironment& env, const heat::DistributedRun& run)
{
    const auto& s = run.stats;
    const auto& layout = run.layout;
    const double n { std::max(1, s.exchanges) * 1.0 };
    const double hidden { s.exchanges > 0 ? s.hiddenExchanges / n : 0.0 };
    constexpr int fields { 11 };
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
        "hidden\n",
        s.exchanges
    );
    double sum[fields] {};
    double maximum[fields] {};
    double minimum10 { all[10] };
    for (int r { 0 }; r < env.sizeRank(); ++r)
    {
        const double* v { &all[static_cast<std::size_t>(r * fields)] };
        std::printf(
            "  %4d %7.0f %7.0f %5.0f %11.0f %11.3f %8.3f %8.3f %10.3f %6.0f%%\n",
            r,
            v[0],
            v[1],
            v[2],
            v[3],
            v[4],
            v[5],
            v[6],
            v[7],
            100.0 * v[8]
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
        "partition: edge cut %lld faces, imbalance %.4f (largest / mean owned cells)\n"
        "peak resident memory per rank (VmHWM after the time loop): max %.1f MiB, mean %.1f MiB, "
        "min %.1f MiB\n",
        static_cast<long long>(run.edgeCut),
        run.imbalance,
        maximum[10] / 1024.0,
        sum[10] / 1024.0 / env.sizeRank(),
        minimum10 / 1024.0
    );
}

int run(int argc, char** argv)
{
    const mpi::MPIEnvironment env;
    const Arguments args { parse(argc, argv) };
    // each rank makes only its own cells (the Gmsh reader still reads the whole file)
    const std::unique_ptr<heat::MeshSource> source { makeSource(args) };
    if (env.rank() == 0)
    {
        std::printf(
            "fieldsync-heat: explicit FV diffusion, %lld cells (%s), %d steps, %d ranks, "
            "partitioner %s, halo receive in place: %s\n",
            static_cast<long long>(source->nCells()),
            source->describe().c_str(),
            args.options.steps,
            env.sizeRank(),
            args.partitioner.c_str(),
            args.options.inPlace ? "on" : "off"
        );
    }
    heat::HeatOptions options { args.options };
    options.verbose = true;
    options.gather = args.verify;
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
    if (args.verify && env.rank() == 0)
    {
        const std::vector<double> serial { heat::solveSerial(*source, result.dt, options) };
        double maxDiff { 0.0 };
        std::size_t differing { 0 };
        for (std::size_t c { 0 }; c < serial.size(); ++c)
        {
            const double a { result.gathered[c] };
            const double b { serial[c] };
            if (std::memcmp(&a, &b, sizeof(double)) != 0)
            {
                ++differing;
                maxDiff = std::max(maxDiff, std::isnan(a) ? INFINITY : std::abs(a - b));
            }
        }
        std::printf(
            "verification against a serial run: max |difference| = %.3g, %zu of %zu cells differ "
            "-> %s\n",
            maxDiff,
            differing,
            serial.size(),
            differing == 0 ? "BITWISE IDENTICAL" : "FAILED"
        );
        status = differing == 0 ? 0 : 1;
    }
    FIELDSYNC_MPI(MPI_Bcast(&status, 1, MPI_INT, 0, env.comm()));
    return status;
}

} // namespace

int main(int argc, char** argv)
{
    mpi::MPIInit init(argc, argv);
    try
    {
        return run(argc, argv);
    }
    catch (const std::exception& e)
    {
        std::fprintf(stderr, "%s\n", e.what());
        return 2;
    }
}
