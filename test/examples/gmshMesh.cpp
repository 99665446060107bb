// SPDX-License-Identifier: MIT
// The parallel Gmsh reader (GmshMesh) on 1..4 ranks: each rank's triangles, node coordinates
// and neighbours checked against the independent truth of the generator (RectangleMsh); its
// pieces bitwise equal to the serial reader's (TriMesh); malformed files an Error on every rank.
#include "fieldsync_test/catch.hpp"

#include "gmshMesh.hpp"
#include "rectangleMsh.hpp"
#include "triMesh.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/mpi/collectives.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

using namespace fieldsync;
using namespace fieldsync::partition;

namespace
{
/** @brief A file name of this test and rank count (ctest may run the np variants together). */
std::string fileName(const mpi::MPIEnvironment& env, const std::string& what)
{
    std::string name { "gmshMesh_" };
    name.append(what).append("_np").append(std::to_string(env.sizeRank())).append(".msh");
    return name;
}

/** @brief Rank 0 writes @p text to @p path; every rank returns after it is written. */
void writeOnRoot(const mpi::MPIEnvironment& env, const std::string& path, const std::string& text)
{
    if (env.rank() == 0)
    {
        std::ofstream(path) << text;
    }
    mpi::barrier(env.comm());
}

/** @brief The text of a small generated mesh. */
std::string rectangleText(const mpi::MPIEnvironment& env)
{
    const std::string path { fileName(env, "small") };
    if (env.rank() == 0)
    {
        heat::RectangleMsh(4, 3).write(path);
    }
    mpi::barrier(env.comm());
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

bool same(double a, double b)
{
    return std::memcmp(&a, &b, sizeof(double)) == 0;
}

/** @brief The node is on the rectangle's side @p side (0: x = 0, 1: x = 2, 2: y = 0, 3: y = 1). */
bool onSide(const heat::Point& p, int side)
{
    const double value[4] { p[0], p[0] - 2.0, p[1], p[1] - 1.0 };
    return value[side] == 0.0;
}

/** @brief Both ends of an edge lie on one side of the rectangle. */
bool onBoundary(const heat::Point& a, const heat::Point& b)
{
    for (int side { 0 }; side < 4; ++side)
    {
        if (onSide(a, side) && onSide(b, side))
        {
            return true;
        }
    }
    return false;
}
} // namespace

TEST_CASE("GmshMesh: each rank reads a contiguous block of the generator's triangles")
{
    const mpi::MPIEnvironment env;
    const heat::RectangleMsh truth(23, 17);
    const std::string path { fileName(env, "rectangle") };
    if (env.rank() == 0)
    {
        truth.write(path);
    }
    mpi::barrier(env.comm());
    const heat::GmshMesh mesh(env, path);
    REQUIRE(mesh.nCells() == truth.nTriangles());
    // the blocks follow each other in rank order and cover every triangle once
    auto held = static_cast<std::int64_t>(mesh.heldCells());
    std::int64_t before { 0 };
    FIELDSYNC_MPI(MPI_Exscan(&held, &before, 1, MPI_INT64_T, MPI_SUM, env.comm()));
    REQUIRE(mesh.firstCell() == (env.rank() == 0 ? 0 : before));
    std::int64_t total { held };
    mpi::allReduce(total, mpi::ReduceOp::Sum, env.comm());
    REQUIRE(total == truth.nTriangles());
    // O(cells / P): a byte share of lines of nearly equal length
    REQUIRE(held <= truth.nTriangles() / env.sizeRank() + 16);
    for (std::size_t i { 0 }; i < mesh.heldCells(); ++i)
    {
        const GlobalIndex id { mesh.firstCell() + static_cast<GlobalIndex>(i) };
        const auto tags = truth.triangleTags(id);
        REQUIRE(mesh.heldTags(i) == tags);
        for (std::size_t v { 0 }; v < 3; ++v)
        {
            const heat::Point p { truth.point(tags[v]) };
            for (std::size_t d { 0 }; d < 3; ++d)
            {
                REQUIRE(same(mesh.heldPoints(i)[v][d], p[d]));
            }
            // the neighbour across edge (v, v+1) has both its nodes; none means the boundary
            const std::int64_t a { tags[v] };
            const std::int64_t b { tags[(v + 1) % 3] };
            const GlobalIndex nb { mesh.heldNeighbours(i)[v] };
            if (nb < 0)
            {
                REQUIRE(onBoundary(truth.point(a), truth.point(b)));
                continue;
            }
            REQUIRE(nb != id);
            const auto other = truth.triangleTags(nb);
            REQUIRE(std::count(other.begin(), other.end(), a) == 1);
            REQUIRE(std::count(other.begin(), other.end(), b) == 1);
        }
    }
}

TEST_CASE("GmshMesh: pieces are bitwise the serial reader's")
{
    const mpi::MPIEnvironment env;
    const char* dir { std::getenv("FIELDSYNC_TEST_DATA") };
    const std::string path { std::string(dir != nullptr ? dir : "test/data") +
                             "/squareWithHole.msh" };
    const heat::GmshMesh mesh(env, path);
    const auto serial = heat::TriMesh::readGmsh(path);
    REQUIRE(mesh.nCells() == serial.nCells());
    // a strided set of ids: most neighbours live on other ranks
    std::vector<GlobalIndex> ids;
    for (GlobalIndex id { env.rank() }; id < mesh.nCells(); id += env.sizeRank())
    {
        ids.push_back(id);
    }
    const heat::MeshPiece mine { mesh.piece(ids) };
    const heat::MeshPiece reference { serial.piece(ids) };
    REQUIRE(mine.nCells() == ids.size());
    for (std::size_t i { 0 }; i < mine.nCells(); ++i)
    {
        REQUIRE(mine.ids()[i] == reference.ids()[i]);
        REQUIRE(same(mine.volume(i), reference.volume(i)));
        for (std::size_t d { 0 }; d < 3; ++d)
        {
            REQUIRE(same(mine.centroid(i)[d], reference.centroid(i)[d]));
        }
    }
    REQUIRE(mine.faceNeighbours().size() == reference.faceNeighbours().size());
    for (std::size_t f { 0 }; f < mine.faceNeighbours().size(); ++f)
    {
        REQUIRE(mine.faceNeighbours()[f] == reference.faceNeighbours()[f]);
        REQUIRE(same(mine.faceCoefficients()[f], reference.faceCoefficients()[f]));
    }
    // an id outside the mesh is an Error on every rank
    const std::vector<GlobalIndex> bad { env.rank() == 0 ? mesh.nCells() : 0 };
    REQUIRE_THROWS_AS(mesh.piece(bad), Error);
}

TEST_CASE("GmshMesh: a malformed file is an Error naming it on every rank")
{
    const mpi::MPIEnvironment env;
    const std::string good { rectangleText(env) };
    const auto replaced = [&good](const std::string& from, const std::string& to)
    {
        std::string text { good };
        const std::size_t at { text.find(from) };
        REQUIRE(at != std::string::npos);
        return text.replace(at, from.size(), to);
    };
    struct Case
    {
        std::string name;   /**< file name part */
        std::string text;   /**< the file */
        std::string expect; /**< part of the message */
    };
    const std::vector<Case> cases {
        { "version", replaced("4.1 0 8", "2.2 0 8"), "needs Gmsh 4.1 ASCII" },
        { "binary", replaced("4.1 0 8", "4.1 1 8"), "needs Gmsh 4.1 ASCII" },
        { "badTriangle", replaced("\n28 12 2 4\n", "\n28 12 x 4\n"), "$Elements block at line" },
        { "badNode", replaced("\n0 0 0\n", "\n0 zero 0\n"), "$Nodes block at line" },
        { "unknownNode", replaced("\n28 12 2 4\n", "\n28 12 2 999\n"), "does not have" },
        { "truncated", replaced("28 12 2 4\n$EndElements\n", ""), "the file ends inside" },
        { "blockCount", replaced("2 1 2 16\n", "2 1 2 15\n"), "expected $EndElements" },
    };
    for (const Case& c : cases)
    {
        const std::string path { fileName(env, c.name) };
        writeOnRoot(env, path, c.text);
        try
        {
            const heat::GmshMesh mesh(env, path);
            FAIL("no Error for the " + c.name + " file");
        }
        catch (const Error& e)
        {
            INFO(c.name << ": " << e.message());
            REQUIRE(e.message().find(path) != std::string::npos);
            REQUIRE(e.message().find(c.expect) != std::string::npos);
        }
    }
}
