// SPDX-License-Identifier: MIT
// fieldsync-heat: explicit finite-volume diffusion on an unstructured triangle mesh, split over
// the MPI ranks with METIS, ghost cells kept in step by fieldsync's Communicator, and checked
// at the end against a serial run of the same scheme (bitwise).
//
//   mpiexec -n 4 fieldsync-heat [--nx N] [--ny N] [--steps S] [--check-every K] [--seed S]
//                               [--mesh file.msh] [--vtk DIR] [--no-inplace] [--no-verify]
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
#include <string>

using namespace fieldsync;
using namespace fieldsync::partition;

namespace
{

struct Arguments
{
    int nx { 400 };
    int ny { 400 };
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
                "' (options: --nx --ny --steps --check-every --seed --mesh --vtk --no-inplace "
                "--no-verify)"
            );
        }
    }
    return a;
}

/** @brief One .vtu per rank (its owned cells, with rank, global id and u) and a .pvtu on 0. */
void writeVtk(
    const std::string& dir,
    const mpi::MPIEnvironment& env,
    const heat::TriMesh& mesh,
    const HaloLayout& layout,
    const std::vector<double>& u
)
{
    std::filesystem::create_directories(dir);
    std::map<std::int64_t, std::size_t> points;
    for (std::size_t i { 0 }; i < layout.nOwned(); ++i)
    {
        for (const std::int64_t n :
             mesh.triangles()[static_cast<std::size_t>(layout.globalIds()[i])])
        {
            points.emplace(n, 0);
        }
    }
    std::size_t next { 0 };
    for (auto& entry : points)
    {
        entry.second = next++;
    }
    const std::string name { "heat_" + std::to_string(env.rank()) + ".vtu" };
    std::ofstream out(dir + "/" + name);
    FIELDSYNC_CHECK(out.good(), "fieldsync-heat: cannot write " + dir + "/" + name);
    out << "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"0.1\">\n"
        << "<UnstructuredGrid><Piece NumberOfPoints=\"" << points.size() << "\" NumberOfCells=\""
        << layout.nOwned() << "\">\n<Points><DataArray type=\"Float64\" NumberOfComponents=\"3\" "
        << "format=\"ascii\">\n";
    for (const auto& [node, index] : points)
    {
        const auto& p = mesh.nodes()[static_cast<std::size_t>(node)];
        out << p[0] << ' ' << p[1] << " 0\n";
    }
    out << "</DataArray></Points>\n<Cells><DataArray type=\"Int64\" Name=\"connectivity\" "
        << "format=\"ascii\">\n";
    for (std::size_t i { 0 }; i < layout.nOwned(); ++i)
    {
        for (const std::int64_t n :
             mesh.triangles()[static_cast<std::size_t>(layout.globalIds()[i])])
        {
            out << points.at(n) << ' ';
        }
        out << '\n';
    }
    out << "</DataArray><DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">\n";
    for (std::size_t i { 1 }; i <= layout.nOwned(); ++i)
    {
        out << 3 * i << '\n';
    }
    out << "</DataArray><DataArray type=\"UInt8\" Name=\"types\" format=\"ascii\">\n";
    for (std::size_t i { 0 }; i < layout.nOwned(); ++i)
    {
        out << "5\n";
    }
    out << "</DataArray></Cells>\n<CellData Scalars=\"rank\">\n"
        << "<DataArray type=\"Int32\" Name=\"rank\" format=\"ascii\">\n";
    for (std::size_t i { 0 }; i < layout.nOwned(); ++i)
    {
        out << env.rank() << '\n';
    }
    out << "</DataArray><DataArray type=\"Int64\" Name=\"globalId\" format=\"ascii\">\n";
    for (std::size_t i { 0 }; i < layout.nOwned(); ++i)
    {
        out << layout.globalIds()[i] << '\n';
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
    constexpr int fields { 10 };
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
}

int run(int argc, char** argv)
{
    const mpi::MPIEnvironment env;
    const Arguments args { parse(argc, argv) };
    const auto meshStart = std::chrono::steady_clock::now();
    // every rank makes (or reads) the whole mesh: this example keeps geometry global and
    // distributes the cells; the halo itself is built without any global array.
    const heat::TriMesh mesh { args.mesh.empty()
                                   ? heat::TriMesh::generate(args.nx, args.ny, args.seed)
                                   : heat::TriMesh::readGmsh(args.mesh) };
    if (env.rank() == 0)
    {
        std::printf(
            "fieldsync-heat: explicit FV diffusion, %zu triangles (%s), %d steps, %d ranks, "
            "halo receive in place: %s\n",
            mesh.nCells(),
            args.mesh.empty() ? ("generated " + std::to_string(args.nx) + "x" +
                                 std::to_string(args.ny) + ", seed " + std::to_string(args.seed))
                                    .c_str()
                              : args.mesh.c_str(),
            args.options.steps,
            env.sizeRank(),
            args.options.inPlace ? "on" : "off"
        );
        std::printf(
            "  mesh ready in %.2f s; partitioning with METIS on rank 0, halo by NBX\n",
            std::chrono::duration<double>(std::chrono::steady_clock::now() - meshStart).count()
        );
    }
    heat::HeatOptions options { args.options };
    options.verbose = true;
    const heat::DistributedRun result { heat::solveDistributed(env, mesh, options) };
    summary(env, result);
    if (!args.vtk.empty())
    {
        writeVtk(args.vtk, env, mesh, result.layout, result.owned);
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
        const std::vector<double> serial { heat::solveSerial(mesh, result.dt, options) };
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
