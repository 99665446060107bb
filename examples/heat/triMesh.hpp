// SPDX-License-Identifier: MIT
#pragma once

#include "fieldsync/partition/cellGraph.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace fieldsync::heat
{

using partition::CellGraph;
using partition::GlobalIndex;

/**
 * @brief An unstructured 2-D triangle mesh with the finite-volume geometry the heat solver
 * needs: cell areas and, for each cell, its three faces in a fixed order (edge k joins the
 * triangle's nodes k and k+1), each with the neighbour cell (or -1 on the boundary) and the
 * diffusion coefficient |face| / distance.
 *
 * Made in the program (generate(): a jittered grid whose squares are split by a random
 * diagonal, the same on every rank for the same seed) or read from a Gmsh 4.1 ASCII file
 * (readGmsh(): the 3-node triangles of the file).
 */
class TriMesh
{
public:
    /**
     * @brief An nx x ny grid of the unit square, interior nodes jittered by up to @p jitter of
     * the spacing, each square split along a random diagonal; 2*nx*ny cells.
     */
    static TriMesh generate(int nx, int ny, std::uint64_t seed, double jitter = 0.3);

    /** @brief The triangles of a Gmsh 4.1 ASCII mesh file. @throws Error naming the line. */
    static TriMesh readGmsh(const std::string& path);

    /** @brief Number of cells (triangles). */
    [[nodiscard]] std::size_t nCells() const noexcept { return triangles_.size(); }

    /** @brief Node coordinates (x, y). */
    [[nodiscard]] const std::vector<std::array<double, 2>>& nodes() const noexcept
    {
        return nodes_;
    }

    /** @brief The three node indices of each triangle. */
    [[nodiscard]] const std::vector<std::array<std::int64_t, 3>>& triangles() const noexcept
    {
        return triangles_;
    }

    /** @brief Area of cell @p c. */
    [[nodiscard]] double area(std::size_t c) const { return area_[c]; }

    /** @brief Centroid of cell @p c. */
    [[nodiscard]] const std::array<double, 2>& centroid(std::size_t c) const
    {
        return centroid_[c];
    }

    /** @brief Neighbour across face @p k (0..2) of cell @p c, or -1 on the boundary. */
    [[nodiscard]] GlobalIndex faceNeighbour(std::size_t c, int k) const
    {
        return faceNeighbour_[c][static_cast<std::size_t>(k)];
    }

    /** @brief Diffusion coefficient |face| / distance of face @p k of cell @p c. */
    [[nodiscard]] double faceCoefficient(std::size_t c, int k) const
    {
        return faceCoefficient_[c][static_cast<std::size_t>(k)];
    }

    /** @brief The cell graph (face neighbours in face order, boundary faces left out). */
    [[nodiscard]] CellGraph graph() const;

private:
    TriMesh(
        std::vector<std::array<double, 2>> nodes, std::vector<std::array<std::int64_t, 3>> triangles
    );

    std::vector<std::array<double, 2>> nodes_;              /**< node coordinates */
    std::vector<std::array<std::int64_t, 3>> triangles_;    /**< node indices per cell */
    std::vector<double> area_;                              /**< cell areas */
    std::vector<std::array<double, 2>> centroid_;           /**< cell centroids */
    std::vector<std::array<GlobalIndex, 3>> faceNeighbour_; /**< neighbour per face or -1 */
    std::vector<std::array<double, 3>> faceCoefficient_;    /**< |face| / distance per face */
};

} // namespace fieldsync::heat
