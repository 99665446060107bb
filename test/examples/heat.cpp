// SPDX-License-Identifier: MIT
// The heat solver on 1..4 ranks: bitwise equal to the serial run of the same scheme, on a
// generated mesh and on a Gmsh mesh, with and without in-place halo receives.
#include "fieldsync_test/catch.hpp"

#include "heatSolver.hpp"
#include "triMesh.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

using namespace fieldsync;
using namespace fieldsync::partition;

namespace
{
std::string dataFile(const std::string& name)
{
    const char* dir { std::getenv("FIELDSYNC_TEST_DATA") };
    return std::string(dir != nullptr ? dir : "test/data") + "/" + name;
}

double totalArea(const heat::TriMesh& mesh)
{
    double sum { 0.0 };
    for (std::size_t c { 0 }; c < mesh.nCells(); ++c)
    {
        sum += mesh.area(c);
    }
    return sum;
}

/** @brief Runs distributed and, on rank 0, serially; requires bitwise equality. */
void requireBitwiseSerial(const heat::TriMesh& mesh, const heat::HeatOptions& options)
{
    const mpi::MPIEnvironment env;
    const heat::DistributedRun run { heat::solveDistributed(env, mesh, options) };
    int differing { 0 };
    if (env.rank() == 0)
    {
        const std::vector<double> serial { heat::solveSerial(mesh, run.dt, options) };
        REQUIRE(serial.size() == run.gathered.size());
        for (std::size_t c { 0 }; c < serial.size(); ++c)
        {
            differing += std::memcmp(&serial[c], &run.gathered[c], sizeof(double)) != 0 ? 1 : 0;
        }
        // the run did something: the field moved away from its start
        const heat::HeatSolver fresh(mesh, heat::HeatSolver::serialLayout(mesh));
        const auto start = fresh.ownedValues();
        double change { 0.0 };
        for (std::size_t c { 0 }; c < serial.size(); ++c)
        {
            change = std::max(change, std::abs(start[c] - serial[c]));
        }
        REQUIRE(change > 1e-6);
    }
    REQUIRE(differing == 0);
    // every rank got cells, and the layout's owned cells are what it sent
    REQUIRE(run.owned.size() == run.layout.nOwned());
}
} // namespace

TEST_CASE("TriMesh: generated and Gmsh meshes have consistent geometry")
{
    const auto generated = heat::TriMesh::generate(12, 9, 5);
    REQUIRE(generated.nCells() == 2 * 12 * 9);
    REQUIRE(std::abs(totalArea(generated) - 1.0) < 1e-12);
    REQUIRE_NOTHROW(generated.graph().checkSymmetric());

    const auto gmsh = heat::TriMesh::readGmsh(dataFile("squareWithHole.msh"));
    REQUIRE(gmsh.nCells() > 100);
    // unit square minus a hole of radius 0.2 (a polygon inside the circle: a bit more area)
    const double area { totalArea(gmsh) };
    REQUIRE(area > 1.0 - M_PI * 0.04);
    REQUIRE(area < 1.0 - M_PI * 0.04 + 0.02);
    REQUIRE_NOTHROW(gmsh.graph().checkSymmetric());
    REQUIRE_THROWS_AS(heat::TriMesh::readGmsh(dataFile("doesNotExist.msh")), Error);
}

TEST_CASE("HeatSolver: distributed run is bitwise equal to the serial run")
{
    heat::HeatOptions options;
    options.steps = 30;
    options.checkEvery = 10;
    SECTION("generated mesh, in place")
    {
        requireBitwiseSerial(heat::TriMesh::generate(26, 19, 11), options);
    }
    SECTION("generated mesh, packed receives")
    {
        options.inPlace = false;
        requireBitwiseSerial(heat::TriMesh::generate(26, 19, 11), options);
    }
    SECTION("Gmsh mesh")
    {
        requireBitwiseSerial(heat::TriMesh::readGmsh(dataFile("squareWithHole.msh")), options);
    }
}
