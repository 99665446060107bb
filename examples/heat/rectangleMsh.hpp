// SPDX-License-Identifier: MIT
#pragma once

#include "meshPiece.hpp"

#include <array>
#include <cstdint>
#include <string>

namespace fieldsync::heat
{

/**
 * @brief A deterministic triangulated rectangle [0, 2] x [0, 1] written as a Gmsh 4.1 ASCII
 * file, and the independent truth the Gmsh reader's tests check against: which nodes and
 * coordinates each triangle has, as functions of the triangle's id.
 *
 * The file exercises what a real Gmsh file has: two node blocks (the bottom row on a curve,
 * the rest on the surface), node tags that are neither file order nor dense (tag of the k-th
 * node in the file is 2 (N - k)), interior nodes moved off the grid, a block of 2-node line
 * elements (skipped by the reader) and the triangles in two blocks. Triangle ids (the order of
 * the triangles in the file) are 2 (i + nx j) + t for square (i, j) and t = 0, 1.
 */
class RectangleMsh
{
public:
    /** @brief An @p nx x @p ny grid of squares, two triangles each. @throws Error below 1. */
    RectangleMsh(int nx, int ny);

    /** @brief Writes the Gmsh 4.1 ASCII file (streamed: memory O(1)). @throws Error naming it. */
    void write(const std::string& path) const;

    /** @brief Number of triangles, 2 nx ny. */
    [[nodiscard]] GlobalIndex nTriangles() const noexcept { return 2 * nx_ * ny_; }

    /** @brief Gmsh node tags of triangle @p id, in the file's node order. */
    [[nodiscard]] std::array<std::int64_t, 3> triangleTags(GlobalIndex id) const;

    /** @brief Coordinates (z = 0) of the node with Gmsh tag @p tag. */
    [[nodiscard]] Point point(std::int64_t tag) const;

private:
    /** @brief Gmsh tag of grid node (i, j). */
    [[nodiscard]] std::int64_t tag(std::int64_t i, std::int64_t j) const noexcept;

    /** @brief Coordinates of grid node (i, j). */
    [[nodiscard]] Point gridPoint(std::int64_t i, std::int64_t j) const;

    std::int64_t nx_; /**< squares along x */
    std::int64_t ny_; /**< squares along y */
};

} // namespace fieldsync::heat
