// SPDX-License-Identifier: MIT
#include "gridMesh.hpp"

#include "fieldsync/core/error.hpp"

#include <algorithm>

namespace fieldsync::heat
{

namespace
{
/** @brief splitmix64's finaliser: a well-mixed 64-bit hash of @p x. */
std::uint64_t mix(std::uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/** @brief A uniform double in [0, 1) that depends only on (seed, stream, index). */
double uniform(std::uint64_t seed, std::uint64_t stream, std::int64_t index)
{
    const std::uint64_t h { mix(mix(seed ^ mix(stream)) + static_cast<std::uint64_t>(index)) };
    return static_cast<double>(h >> 11) * 0x1.0p-53;
}

/** @brief Grid offsets (i, j, k) of the eight hexahedron nodes, VTK order. */
constexpr std::array<std::array<int, 3>, 8> cubeCorner { { { 0, 0, 0 },
                                                           { 1, 0, 0 },
                                                           { 1, 1, 0 },
                                                           { 0, 1, 0 },
                                                           { 0, 0, 1 },
                                                           { 1, 0, 1 },
                                                           { 1, 1, 1 },
                                                           { 0, 1, 1 } } };

/** @brief The Kuhn split of a cube: tetrahedron t is corners {0, a, b, 6}. */
constexpr std::array<std::array<int, 2>, 6> kuhnMiddle {
    { { 1, 2 }, { 1, 5 }, { 3, 2 }, { 3, 7 }, { 4, 5 }, { 4, 7 } }
};
} // namespace

GridMesh::GridMesh(CellShape shape, int nx, int ny, int nz, std::uint64_t seed, double jitter)
    : shape_(shape), nx_(nx), ny_(ny), nz_(dimension(shape) == 2 ? 1 : nz), seed_(seed),
      jitter_(jitter >= 0.0 ? jitter : (dimension(shape) == 2 ? 0.3 : 0.15))
{
    FIELDSYNC_CHECK(nx >= 1 && ny >= 1 && nz_ >= 1, "GridMesh: needs nx, ny (and nz in 3-D) >= 1");
}

GlobalIndex GridMesh::nCells() const
{
    return nx_ * ny_ * nz_ * cellsPerBlock();
}

std::int64_t GridMesh::cellsPerBlock() const noexcept
{
    return shape_ == CellShape::Triangle ? 2 : shape_ == CellShape::Tetrahedron ? 6 : 1;
}

std::string GridMesh::describe() const
{
    std::string text { "generated " };
    text.append(
        shape_ == CellShape::Triangle      ? "triangles "
        : shape_ == CellShape::Tetrahedron ? "tetrahedra "
                                           : "hexahedra "
    );
    text.append(std::to_string(nx_)).append("x").append(std::to_string(ny_));
    if (dimension(shape_) == 3)
    {
        text.append("x").append(std::to_string(nz_));
    }
    text.append(", seed ").append(std::to_string(seed_));
    return text;
}

std::int64_t GridMesh::nodeId(std::int64_t i, std::int64_t j, std::int64_t k) const
{
    return i + (nx_ + 1) * (j + (ny_ + 1) * k);
}

Point GridMesh::node(std::int64_t i, std::int64_t j, std::int64_t k) const
{
    const std::int64_t id { nodeId(i, j, k) };
    const std::array<std::int64_t, 3> index { i, j, k };
    const std::array<std::int64_t, 3> count { nx_, ny_, nz_ };
    Point p { 0.0, 0.0, 0.0 };
    for (std::size_t d { 0 }; d < static_cast<std::size_t>(dimension(shape_)); ++d)
    {
        const double h { 1.0 / static_cast<double>(count[d]) };
        const bool inside { index[d] > 0 && index[d] < count[d] };
        const double shift { (uniform(seed_, d, id) - 0.5) * 2.0 * jitter_ * h };
        p[d] = static_cast<double>(index[d]) * h + (inside ? shift : 0.0);
    }
    return p;
}

void GridMesh::addCells(std::int64_t block, std::vector<PatchCell>& out) const
{
    const std::int64_t i { block % nx_ };
    const std::int64_t j { (block / nx_) % ny_ };
    const std::int64_t k { block / (nx_ * ny_) };
    const std::int64_t firstCell { block * cellsPerBlock() };
    const auto corner = [&](int c, PatchCell& cell, int slot)
    {
        const auto& o = cubeCorner[static_cast<std::size_t>(c)];
        cell.nodes[static_cast<std::size_t>(slot)] = nodeId(i + o[0], j + o[1], k + o[2]);
        cell.points[static_cast<std::size_t>(slot)] = node(i + o[0], j + o[1], k + o[2]);
    };
    if (shape_ == CellShape::Triangle)
    {
        // square corners a b c d = cube corners 0 1 2 3; split along a-c or b-d
        const bool alongAc { uniform(seed_, 3, block) < 0.5 };
        const std::array<std::array<int, 3>, 2> split {
            alongAc ? std::array<std::array<int, 3>, 2> { { { 0, 1, 2 }, { 0, 2, 3 } } }
                    : std::array<std::array<int, 3>, 2> { { { 0, 1, 3 }, { 1, 2, 3 } } }
        };
        for (std::int64_t t { 0 }; t < 2; ++t)
        {
            PatchCell cell { firstCell + t, shape_, {}, {} };
            for (int v { 0 }; v < 3; ++v)
            {
                corner(split[static_cast<std::size_t>(t)][static_cast<std::size_t>(v)], cell, v);
            }
            out.push_back(cell);
        }
    }
    else if (shape_ == CellShape::Hexahedron)
    {
        PatchCell cell { firstCell, shape_, {}, {} };
        for (int v { 0 }; v < 8; ++v)
        {
            corner(v, cell, v);
        }
        out.push_back(cell);
    }
    else
    {
        for (std::size_t t { 0 }; t < kuhnMiddle.size(); ++t)
        {
            PatchCell cell { firstCell + static_cast<std::int64_t>(t), shape_, {}, {} };
            corner(0, cell, 0);
            corner(kuhnMiddle[t][0], cell, 1);
            corner(kuhnMiddle[t][1], cell, 2);
            corner(6, cell, 3);
            out.push_back(cell);
        }
    }
}

MeshPiece GridMesh::piece(std::span<const GlobalIndex> ids) const
{
    // A cell's geometry depends only on its own and its neighbours' nodes, so the piece is
    // made in chunks of ids, each from its own small patch: the patch (272 bytes a cell) and
    // its face table never exist for all the ids at once (doc/notes/scaling.md, "Memory per
    // cell"), and the piece is bitwise the same as from one patch.
    constexpr std::size_t chunk { std::size_t { 1 } << 16 };
    if (ids.size() <= chunk)
    {
        return patchPiece(ids);
    }
    MeshPiece whole;
    whole.reserve(
        ids.size(),
        ids.size() * static_cast<std::size_t>(faceCount(shape_)),
        ids.size() * static_cast<std::size_t>(nodeCount(shape_))
    );
    for (std::size_t begin { 0 }; begin < ids.size(); begin += chunk)
    {
        whole.append(patchPiece(ids.subspan(begin, std::min(chunk, ids.size() - begin))));
    }
    whole.shrinkToFit(); // the node table grew by doubling: its size is known only now
    return whole;
}

MeshPiece GridMesh::patchPiece(std::span<const GlobalIndex> ids) const
{
    // the squares (cubes) of the cells, and those across each of their faces
    // every block and its face neighbours (2 per dimension), reserved at once: no doubling
    std::vector<std::int64_t> blocks;
    blocks.reserve(
        static_cast<std::size_t>(1 + 2 * dimension(shape_)) *
        (ids.size() / static_cast<std::size_t>(cellsPerBlock()) + 1)
    );
    for (const GlobalIndex id : ids)
    {
        FIELDSYNC_CHECK(
            id >= 0 && id < nCells(),
            "GridMesh::piece: cell " + std::to_string(id) + " is not in the mesh"
        );
        const std::int64_t b { id / cellsPerBlock() };
        if (blocks.empty() || blocks.back() != b)
        {
            blocks.push_back(b);
        }
    }
    const std::size_t own { blocks.size() };
    for (std::size_t n { 0 }; n < own; ++n)
    {
        const std::int64_t b { blocks[n] };
        const std::int64_t i { b % nx_ };
        const std::int64_t j { (b / nx_) % ny_ };
        const std::int64_t k { b / (nx_ * ny_) };
        const std::array<std::array<std::int64_t, 3>, 6> across { { { i - 1, j, k },
                                                                    { i + 1, j, k },
                                                                    { i, j - 1, k },
                                                                    { i, j + 1, k },
                                                                    { i, j, k - 1 },
                                                                    { i, j, k + 1 } } };
        for (const auto& [a, c, d] : across)
        {
            if (a >= 0 && a < nx_ && c >= 0 && c < ny_ && d >= 0 && d < nz_)
            {
                blocks.push_back(a + nx_ * (c + ny_ * d));
            }
        }
    }
    std::sort(blocks.begin(), blocks.end());
    blocks.erase(std::unique(blocks.begin(), blocks.end()), blocks.end());
    std::vector<PatchCell> patch;
    patch.reserve(blocks.size() * static_cast<std::size_t>(cellsPerBlock()));
    for (const std::int64_t b : blocks)
    {
        addCells(b, patch);
    }
    std::vector<std::int64_t>().swap(blocks); // freed before the piece is made
    return MeshPiece(patch, ids);
}

} // namespace fieldsync::heat
