// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace fieldsync::heat
{

/** @brief A run of lines of a Gmsh file: bytes [begin, end), @p count lines. */
struct GmshBlock
{
    std::int64_t begin { 0 }; /**< byte offset of the first line */
    std::int64_t end { 0 };   /**< byte offset just past the last line's newline */
    std::int64_t count { 0 }; /**< lines in the run */
    std::int64_t line { 0 };  /**< line number (1-based) of the block's header, for errors */
};

/**
 * @brief Where the data of a Gmsh 4.1 ASCII file lies, found by one cheap sequential pass that
 * parses only the section markers and block headers and skips the data lines by counting
 * newlines (memory O(blocks), never O(file)): per node block, the byte runs of its tags and of
 * its coordinates; per block of 3-node triangles (element type 2), the byte run of its lines.
 * With it each rank of the parallel reader (GmshMesh) seeks straight to its share of the data.
 */
class GmshScan
{
public:
    /**
     * @brief Scans @p path (one process).
     * @throws Error naming the file and line: cannot open, no $MeshFormat, not version 4.x,
     * binary, a bad section header or block header, a section cut short (the line after the
     * blocks is not its $End marker), no $Nodes before $Elements, no triangles.
     */
    static GmshScan read(const std::string& path);

    /** @brief The scan as integers, for a broadcast. */
    [[nodiscard]] std::vector<std::int64_t> pack() const;

    /** @brief The scan pack() gave. */
    static GmshScan unpack(std::span<const std::int64_t> packed);

    std::vector<GmshBlock> nodeTags;        /**< per node block: its tag lines */
    std::vector<GmshBlock> nodeCoordinates; /**< per node block: its coordinate lines */
    std::vector<GmshBlock> triangles;       /**< per triangle block: its element lines */
    std::int64_t nNodes { 0 };              /**< nodes (sum over the node blocks) */
    std::int64_t minNodeTag { 0 };          /**< smallest node tag ($Nodes header) */
    std::int64_t maxNodeTag { 0 };          /**< largest node tag ($Nodes header) */
    std::int64_t nTriangles { 0 };          /**< triangles (sum over the triangle blocks) */
};

} // namespace fieldsync::heat
