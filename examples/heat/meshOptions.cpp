// SPDX-License-Identifier: MIT
#include "meshOptions.hpp"

#include "gmshMesh.hpp"
#include "gridMesh.hpp"
#include "triMesh.hpp"

#include "fieldsync/config.hpp"
#include "fieldsync/core/error.hpp"
#include "fieldsync/mpi/mpiInit.hpp"

#include <cstdio>
#include <exception>

namespace fieldsync::heat
{

void MeshOptions::declare(CLI::App& app)
{
    app.add_option("--shape", shape, "cell shape: tri (2-D triangles), hex or tet (3-D)")
        ->check(CLI::IsMember({ "tri", "hex", "tet" }))
        ->capture_default_str();
    app.add_option("--nx", nx, "cells along x (default 400 for tri, 40 for hex/tet)")
        ->check(CLI::PositiveNumber);
    app.add_option("--ny", ny, "cells along y (default: as --nx)")->check(CLI::PositiveNumber);
    app.add_option("--nz", nz, "cells along z, hex/tet only (default: as --nx)")
        ->check(CLI::PositiveNumber);
    app.add_option("--seed", seed, "seed of the generated mesh")->capture_default_str();
    app.add_option(
           "--mesh", file, "Gmsh 4.1 ASCII file (its triangles) instead of a generated mesh"
    )
        ->check(CLI::ExistingFile);
    app.add_option(
           "--gmsh-reader",
           reader,
           "parallel: each rank reads only its share of the file; serial: every rank reads the "
           "whole file (the old reader, for comparison)"
    )
        ->check(CLI::IsMember({ "parallel", "serial" }))
        ->capture_default_str();
    std::string partitioners { "how cells are split over the ranks: metis (graph on rank 0), " };
    partitioners.append("ptscotch (distributed graph");
    partitioners.append(FIELDSYNC_HAVE_PTSCOTCH ? ")" : "; not in this build)");
    partitioners.append(" or slab (the slabs each rank generated)");
    app.add_option("--partitioner", partitioner, partitioners)
        ->check(CLI::IsMember({ "metis", "ptscotch", "slab" }))
        ->capture_default_str();
}

void MeshOptions::complete(const std::string& program)
{
    nx = nx > 0 ? nx : (shape == "tri" ? 400 : 40);
    ny = ny > 0 ? ny : nx;
    nz = shape == "tri" ? 1 : (nz > 0 ? nz : nx);
    FIELDSYNC_CHECK(
        FIELDSYNC_HAVE_PTSCOTCH || partitioner != "ptscotch",
        program + ": --partitioner ptscotch: this build has no PT-Scotch " +
            "(FIELDSYNC_WITH_PTSCOTCH=OFF)"
    );
}

PartitionerKind MeshOptions::partitionerKind() const
{
    return partitioner == "metis"      ? PartitionerKind::Metis
           : partitioner == "ptscotch" ? PartitionerKind::PtScotch
                                       : PartitionerKind::Slab;
}

std::unique_ptr<MeshSource> MeshOptions::source(const mpi::MPIEnvironment& env) const
{
    if (!file.empty() && reader == "parallel")
    {
        return std::make_unique<GmshMesh>(env, file);
    }
    if (!file.empty())
    {
        return std::make_unique<TriMesh>(TriMesh::readGmsh(file));
    }
    const CellShape cellShape { shape == "tri"   ? CellShape::Triangle
                                : shape == "hex" ? CellShape::Hexahedron
                                                 : CellShape::Tetrahedron };
    return std::make_unique<GridMesh>(cellShape, nx, ny, nz, seed);
}

int parseCommandLine(CLI::App& app, int argc, char** argv)
{
    app.allow_extras(); // the Kokkos options; anything else is refused below
    try
    {
        app.parse(argc, argv);
        for (const std::string& extra : app.remaining())
        {
            if (extra.rfind("--kokkos", 0) != 0)
            {
                throw CLI::ExtrasError({ extra });
            }
        }
    }
    catch (const CLI::ParseError& e)
    {
        return app.exit(e);
    }
    return -1;
}

int exampleMain(
    int argc, char** argv, const std::function<int()>& parse, const std::function<int()>& run
)
{
    try
    {
        const int stop { parse() };
        if (stop >= 0)
        {
            return stop;
        }
    }
    catch (const std::exception& e)
    {
        std::fprintf(stderr, "%s\n", e.what());
        return 2;
    }
    mpi::MPIInit init(argc, argv);
    mpi::ensureKokkos(); // Kokkos now: the examples make Kokkos views themselves
    try
    {
        return run();
    }
    catch (const std::exception& e)
    {
        std::fprintf(stderr, "%s\n", e.what());
        return 2;
    }
}

} // namespace fieldsync::heat
