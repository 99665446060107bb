// SPDX-License-Identifier: MIT
#pragma once

#include "meshSource.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace fieldsync::heat
{

/**
 * @brief A 2-D triangle mesh read from a Gmsh 4.1 ASCII file (its 3-node triangles), as a
 * MeshSource. Every rank that makes one reads the whole file: the serial reader, for the serial
 * reference run and for comparison (`--gmsh-reader serial`); GmshMesh reads in parallel.
 */
class TriMesh : public MeshSource
{
public:
    /** @brief The triangles of a Gmsh 4.1 ASCII mesh file. @throws Error naming the line. */
    static TriMesh readGmsh(const std::string& path);

    [[nodiscard]] GlobalIndex nCells() const override
    {
        return static_cast<GlobalIndex>(triangles_.size());
    }
    [[nodiscard]] std::string describe() const override { return path_; }
    [[nodiscard]] MeshPiece piece(std::span<const GlobalIndex> ids) const override;

private:
    TriMesh(
        std::string path,
        std::vector<std::array<double, 2>> nodes,
        std::vector<std::array<std::int64_t, 3>> triangles
    );

    std::string path_;                                      /**< the file */
    std::vector<std::array<double, 2>> nodes_;              /**< node coordinates */
    std::vector<std::array<std::int64_t, 3>> triangles_;    /**< node indices per cell */
    std::vector<std::array<GlobalIndex, 3>> faceNeighbour_; /**< neighbour per edge or -1 */
};

} // namespace fieldsync::heat
