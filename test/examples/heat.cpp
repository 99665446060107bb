// SPDX-License-Identifier: MIT
// The heat solver on 1..4 ranks: bitwise equal to the serial run of the same scheme, on
// generated 2-D and 3-D meshes (made in parallel, each rank its own cells) and on a Gmsh mesh,
// with each partitioner, with and without in-place halo receives.
#include "fieldsync_test/catch.hpp"

#include "gmshMesh.hpp"
#include "gridMesh.hpp"
#include "heatSolver.hpp"
#include "triMesh.hpp"

#include "fieldsync/config.hpp"
#include "fieldsync/core/error.hpp"
#include "fieldsync/mpi/collectives.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"

#include <algorithm>
#include <array>
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

std::vector<GlobalIndex> range(GlobalIndex begin, GlobalIndex end, GlobalIndex step = 1)
{
    std::vector<GlobalIndex> ids;
    for (GlobalIndex id { begin }; id < end; id += step)
    {
        ids.push_back(id);
    }
    return ids;
}

heat::MeshPiece whole(const heat::MeshSource& source)
{
    return source.piece(range(0, source.nCells()));
}

double totalVolume(const heat::MeshPiece& piece)
{
    double sum { 0.0 };
    for (std::size_t c { 0 }; c < piece.nCells(); ++c)
    {
        sum += piece.volume(c);
    }
    return sum;
}

bool same(double a, double b)
{
    return std::memcmp(&a, &b, sizeof(double)) == 0;
}

/** @brief Cells of @p part have bitwise the geometry they have in @p all (the whole mesh). */
void requireSameGeometry(const heat::MeshPiece& part, const heat::MeshPiece& all)
{
    for (std::size_t i { 0 }; i < part.nCells(); ++i)
    {
        const auto c = static_cast<std::size_t>(part.ids()[i]);
        REQUIRE(same(part.volume(i), all.volume(c)));
        for (std::size_t d { 0 }; d < 3; ++d)
        {
            REQUIRE(same(part.centroid(i)[d], all.centroid(c)[d]));
        }
        const std::size_t nFaces { part.faceOffsets()[i + 1] - part.faceOffsets()[i] };
        REQUIRE(nFaces == all.faceOffsets()[c + 1] - all.faceOffsets()[c]);
        for (std::size_t f { 0 }; f < nFaces; ++f)
        {
            const std::size_t a { part.faceOffsets()[i] + f };
            const std::size_t b { all.faceOffsets()[c] + f };
            REQUIRE(part.faceNeighbours()[a] == all.faceNeighbours()[b]);
            REQUIRE(same(part.faceCoefficients()[a], all.faceCoefficients()[b]));
        }
        // the same nodes, in the same order, at the same points
        const std::span<const std::uint32_t> mine { part.cellNodes(i) };
        const std::span<const std::uint32_t> theirs { all.cellNodes(c) };
        REQUIRE(mine.size() == theirs.size());
        for (std::size_t k { 0 }; k < mine.size(); ++k)
        {
            REQUIRE(part.nodeIds()[mine[k]] == all.nodeIds()[theirs[k]]);
            for (std::size_t d { 0 }; d < 3; ++d)
            {
                REQUIRE(same(part.nodePoints()[mine[k]][d], all.nodePoints()[theirs[k]][d]));
            }
        }
    }
}

/**
 * @brief Runs distributed and, on rank 0, serially (on @p serialSource when given: a source
 * whose piece() is collective cannot run alone); requires bitwise equality.
 */
void requireBitwiseSerial(
    const heat::MeshSource& source,
    const heat::HeatOptions& options,
    const heat::MeshSource* serialSource = nullptr
)
{
    const mpi::MPIEnvironment env;
    const heat::DistributedRun run { heat::solveDistributed(env, source, options) };
    int differing { 0 };
    if (env.rank() == 0)
    {
        const heat::MeshSource& reference { serialSource != nullptr ? *serialSource : source };
        const std::vector<double> serial { heat::solveSerial(reference, run.dt, options) };
        REQUIRE(serial.size() == run.gathered.size());
        for (std::size_t c { 0 }; c < serial.size(); ++c)
        {
            differing += same(serial[c], run.gathered[c]) ? 0 : 1;
        }
        // the run did something: the field moved away from its start
        const heat::MeshPiece all { whole(reference) };
        const heat::HeatSolver fresh(all, heat::HeatSolver::serialLayout(all));
        const auto start = fresh.ownedValues();
        double change { 0.0 };
        for (std::size_t c { 0 }; c < serial.size(); ++c)
        {
            change = std::max(change, std::abs(start[c] - serial[c]));
        }
        REQUIRE(change > 1e-6);
    }
    REQUIRE(differing == 0);
    // every cell is owned once: the owned counts add up and the pieces are what the layouts own
    REQUIRE(run.owned.size() == run.layout.nOwned());
    REQUIRE(run.piece.nCells() == run.layout.nOwned());
    auto owned = static_cast<std::int64_t>(run.layout.nOwned());
    mpi::allReduce(owned, mpi::ReduceOp::Sum, env.comm());
    REQUIRE(owned == source.nCells());
    REQUIRE(run.imbalance >= 1.0);
    REQUIRE(run.peakKiB > 0);
}
} // namespace

TEST_CASE("GridMesh: generated 2-D and 3-D meshes have consistent geometry")
{
    const heat::GridMesh tri { heat::GridMesh::triangles(12, 9, 5) };
    const heat::GridMesh hex(heat::CellShape::Hexahedron, 5, 4, 3, 7);
    const heat::GridMesh tet(heat::CellShape::Tetrahedron, 4, 3, 3, 7);
    REQUIRE(tri.nCells() == 2 * 12 * 9);
    REQUIRE(hex.nCells() == 5 * 4 * 3);
    REQUIRE(tet.nCells() == 6 * 4 * 3 * 3);
    for (const heat::GridMesh* mesh : { &tri, &hex, &tet })
    {
        const heat::MeshPiece all { whole(*mesh) };
        // the cells fill the unit square (cube) exactly once
        REQUIRE(std::abs(totalVolume(all) - 1.0) < 1e-12);
        const CellGraph graph { all.graph() };
        REQUIRE(graph.isGlobal());
        REQUIRE_NOTHROW(graph.checkSymmetric());
        // interior faces: 3 per triangle, 6 per hexahedron, 4 per tetrahedron, minus the boundary
        const std::size_t faces { all.faceNeighbours().size() };
        REQUIRE(
            faces == static_cast<std::size_t>(mesh->nCells()) *
                         static_cast<std::size_t>(heat::faceCount(mesh->shape()))
        );
        // any subset (a slab, every third cell) has bitwise the geometry of the whole mesh
        const GlobalIndex n { mesh->nCells() };
        requireSameGeometry(mesh->piece(range(n / 3, 2 * n / 3)), all);
        requireSameGeometry(mesh->piece(range(1, n, 3)), all);
    }
    // a hexahedron mesh has 6 * nx*ny*nz faces, of which 2(nx*ny + ny*nz + nx*nz) on the boundary
    const heat::MeshPiece allHex { whole(hex) };
    std::size_t boundary { 0 };
    for (const GlobalIndex nb : allHex.faceNeighbours())
    {
        boundary += nb < 0 ? 1 : 0;
    }
    REQUIRE(boundary == 2 * (5 * 4 + 4 * 3 + 5 * 3));
    REQUIRE_THROWS_AS(heat::GridMesh(heat::CellShape::Hexahedron, 0, 1, 1, 1), Error);
}

TEST_CASE("GridMesh: a piece made in chunks has the geometry of single patches")
{
    // 68 000 triangles: more than one chunk of 65 536 ids (GridMesh::piece)
    const heat::GridMesh tri { heat::GridMesh::triangles(200, 170, 3) };
    const heat::MeshPiece all { whole(tri) };
    REQUIRE(all.nCells() == 68000);
    REQUIRE_NOTHROW(all.graph().checkSymmetric());
    // each cell as made from one patch: two halves, every third cell, and a slab across the
    // chunk boundary
    requireSameGeometry(tri.piece(range(0, 34000)), all);
    requireSameGeometry(tri.piece(range(34000, 68000)), all);
    requireSameGeometry(tri.piece(range(1, 68000, 3)), all);
    requireSameGeometry(tri.piece(range(60000, 68000)), all);
    // the node table after the chunk boundaries: every grid node once, node (i, j) with id
    // i + 201 j within 0.3 of the spacing of (i / 200, j / 170)
    REQUIRE(all.nodeIds().size() == 201 * 171);
    REQUIRE(all.nodePoints().size() == 201 * 171);
    for (std::size_t n { 0 }; n < all.nodeIds().size(); ++n)
    {
        REQUIRE(all.nodeIds()[n] == static_cast<std::int64_t>(n));
        const heat::Point& p { all.nodePoints()[n] };
        REQUIRE(std::abs(p[0] - static_cast<double>(n % 201) / 200.0) <= 0.3 / 200.0 + 1e-15);
        REQUIRE(std::abs(p[1] - static_cast<double>(n / 201) / 170.0) <= 0.3 / 170.0 + 1e-15);
        REQUIRE(p[2] == 0.0);
    }
    // triangle c has three distinct corners of its square c / 2
    for (std::size_t c { 0 }; c < all.nCells(); ++c)
    {
        REQUIRE(all.ids()[c] == static_cast<GlobalIndex>(c));
        const std::span<const std::uint32_t> nodes { all.cellNodes(c) };
        REQUIRE(nodes.size() == 3);
        const std::int64_t corner { static_cast<std::int64_t>(c / 2 % 200 + 201 * (c / 2 / 200)) };
        const std::array<std::int64_t, 4> square { corner, corner + 1, corner + 201, corner + 202 };
        for (std::size_t k { 0 }; k < 3; ++k)
        {
            const std::int64_t id { all.nodeIds()[nodes[k]] };
            REQUIRE(std::find(square.begin(), square.end(), id) != square.end());
            REQUIRE(id != all.nodeIds()[nodes[(k + 1) % 3]]);
        }
    }
    // appended pieces share their nodes (a row and a half, here): as if made at once
    heat::MeshPiece joined { tri.piece(range(0, 301)) };
    joined.append(tri.piece(range(301, 1000)));
    REQUIRE(joined.nodeIds().size() == tri.piece(range(0, 1000)).nodeIds().size());
    requireSameGeometry(joined, all);
    // appending cells that do not follow is refused
    heat::MeshPiece piece { tri.piece(range(10, 20)) };
    REQUIRE_THROWS_AS(piece.append(tri.piece(range(0, 5))), Error);
}

TEST_CASE("TriMesh: Gmsh mesh has consistent geometry")
{
    const auto gmsh = heat::TriMesh::readGmsh(dataFile("squareWithHole.msh"));
    REQUIRE(gmsh.nCells() > 100);
    const heat::MeshPiece all { whole(gmsh) };
    // unit square minus a hole of radius 0.2 (a polygon inside the circle: a bit more area)
    const double area { totalVolume(all) };
    REQUIRE(area > 1.0 - M_PI * 0.04);
    REQUIRE(area < 1.0 - M_PI * 0.04 + 0.02);
    REQUIRE_NOTHROW(all.graph().checkSymmetric());
    requireSameGeometry(gmsh.piece(range(5, gmsh.nCells(), 4)), all);
    REQUIRE_THROWS_AS(heat::TriMesh::readGmsh(dataFile("doesNotExist.msh")), Error);
}

TEST_CASE("HeatSolver: distributed run is bitwise equal to the serial run")
{
    heat::HeatOptions options;
    options.steps = 30;
    options.checkEvery = 10;
    SECTION("generated mesh, in place")
    {
        requireBitwiseSerial(heat::GridMesh::triangles(26, 19, 11), options);
    }
    SECTION("generated mesh, packed receives")
    {
        options.inPlace = false;
        requireBitwiseSerial(heat::GridMesh::triangles(26, 19, 11), options);
    }
    SECTION("generated mesh, slabs as generated (no partitioner)")
    {
        options.partitioner = heat::PartitionerKind::Slab;
        requireBitwiseSerial(heat::GridMesh::triangles(26, 19, 11), options);
    }
    SECTION("3-D hexahedra")
    {
        requireBitwiseSerial(heat::GridMesh(heat::CellShape::Hexahedron, 9, 8, 7, 3), options);
    }
    SECTION("3-D tetrahedra")
    {
        requireBitwiseSerial(heat::GridMesh(heat::CellShape::Tetrahedron, 6, 5, 5, 3), options);
    }
#if FIELDSYNC_HAVE_PTSCOTCH
    SECTION("generated mesh, PT-Scotch")
    {
        options.partitioner = heat::PartitionerKind::PtScotch;
        requireBitwiseSerial(heat::GridMesh::triangles(26, 19, 11), options);
    }
    SECTION("3-D tetrahedra, PT-Scotch")
    {
        options.partitioner = heat::PartitionerKind::PtScotch;
        requireBitwiseSerial(heat::GridMesh(heat::CellShape::Tetrahedron, 6, 5, 5, 3), options);
    }
    SECTION("Gmsh mesh, PT-Scotch")
    {
        options.partitioner = heat::PartitionerKind::PtScotch;
        requireBitwiseSerial(heat::TriMesh::readGmsh(dataFile("squareWithHole.msh")), options);
    }
#endif
    SECTION("Gmsh mesh")
    {
        requireBitwiseSerial(heat::TriMesh::readGmsh(dataFile("squareWithHole.msh")), options);
    }
    SECTION("Gmsh mesh read in parallel, each partitioner")
    {
        const mpi::MPIEnvironment env;
        const heat::GmshMesh gmsh(env, dataFile("squareWithHole.msh"));
        const auto serial = heat::TriMesh::readGmsh(dataFile("squareWithHole.msh"));
        REQUIRE(gmsh.nCells() == serial.nCells());
        std::vector<heat::PartitionerKind> kinds { heat::PartitionerKind::Metis,
                                                   heat::PartitionerKind::Slab };
        if (FIELDSYNC_HAVE_PTSCOTCH)
        {
            kinds.push_back(heat::PartitionerKind::PtScotch);
        }
        for (const heat::PartitionerKind kind : kinds)
        {
            options.partitioner = kind;
            requireBitwiseSerial(gmsh, options, &serial);
        }
    }
}
