// SPDX-License-Identifier: MIT
#pragma once

#include "meshSource.hpp"

#include <cstdint>
#include <vector>

namespace fieldsync::heat
{

/**
 * @brief Generated unstructured meshes of the unit square or cube, made in parallel: a grid
 * whose interior nodes are jittered, split into triangles (2-D, each square along a random
 * diagonal), hexahedra (3-D) or tetrahedra (3-D, six per cube, the Kuhn split, conforming).
 *
 * Every random choice is a hash of (seed, node or square id), not a draw from a sequential
 * stream, so any cell can be made on its own: a rank makes only the cells it asks for and
 * their neighbours, and the mesh is the same for any number of ranks.
 *
 * Cell ids: squares (cubes) are numbered along x, then y, then z; triangle 2s+t (t = 0, 1) of
 * square s, hexahedron s, tetrahedron 6s+t (t = 0..5) of cube s.
 */
class GridMesh : public MeshSource
{
public:
    /**
     * @brief An nx x ny (x nz for 3-D shapes) grid of @p shape cells, jittered by up to
     * @p jitter of the spacing (0.3 in 2-D and 0.15 in 3-D when negative).
     * @throws Error for a size below 1.
     */
    GridMesh(CellShape shape, int nx, int ny, int nz, std::uint64_t seed, double jitter = -1.0);

    /** @brief A 2-D triangle mesh (the example's default kind). */
    static GridMesh triangles(int nx, int ny, std::uint64_t seed)
    {
        return GridMesh(CellShape::Triangle, nx, ny, 1, seed);
    }

    [[nodiscard]] GlobalIndex nCells() const override;
    [[nodiscard]] std::string describe() const override;
    [[nodiscard]] MeshPiece piece(std::span<const GlobalIndex> ids) const override;

    /** @brief The cell shape. */
    [[nodiscard]] CellShape shape() const noexcept { return shape_; }

private:
    /** @brief The (jittered) coordinates of grid node (i, j, k). */
    [[nodiscard]] Point node(std::int64_t i, std::int64_t j, std::int64_t k) const;

    /** @brief Global id of grid node (i, j, k). */
    [[nodiscard]] std::int64_t nodeId(std::int64_t i, std::int64_t j, std::int64_t k) const;

    /** @brief piece() of at most a chunk of ids, from one patch (the ids and their neighbours). */
    [[nodiscard]] MeshPiece patchPiece(std::span<const GlobalIndex> ids) const;

    /** @brief Appends the cells of square (cube) @p block to @p out. */
    void addCells(std::int64_t block, std::vector<PatchCell>& out) const;

    /** @brief Cells per square (cube). */
    [[nodiscard]] std::int64_t cellsPerBlock() const noexcept;

    CellShape shape_;    /**< cell shape */
    std::int64_t nx_;    /**< squares along x */
    std::int64_t ny_;    /**< squares along y */
    std::int64_t nz_;    /**< cubes along z (1 in 2-D) */
    std::uint64_t seed_; /**< hash seed */
    double jitter_;      /**< node jitter, fraction of the spacing */
};

} // namespace fieldsync::heat
