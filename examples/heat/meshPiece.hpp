// SPDX-License-Identifier: MIT
#pragma once

#include "fieldsync/partition/cellGraph.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace fieldsync::heat
{

using partition::CellGraph;
using partition::GlobalIndex;

/** @brief A point in space; 2-D meshes have z = 0. */
using Point = std::array<double, 3>;

/** @brief The cell shapes the example meshes are made of. */
enum class CellShape
{
    Triangle,    /**< 2-D, 3 nodes, 3 faces (edges) */
    Tetrahedron, /**< 3-D, 4 nodes, 4 triangular faces */
    Hexahedron   /**< 3-D, 8 nodes in VTK order, 6 quadrilateral faces */
};

/** @brief Number of nodes of a cell of shape @p shape. */
[[nodiscard]] int nodeCount(CellShape shape) noexcept;

/** @brief Number of faces of a cell of shape @p shape. */
[[nodiscard]] int faceCount(CellShape shape) noexcept;

/** @brief The spatial dimension of @p shape (2 or 3). */
[[nodiscard]] int dimension(CellShape shape) noexcept;

/** @brief The VTK cell type of @p shape (5, 10, 12). */
[[nodiscard]] int vtkType(CellShape shape) noexcept;

/**
 * @brief One cell as a mesh source hands it out: global id, shape, global node ids and their
 * coordinates (the first nodeCount(shape) entries are used).
 */
struct PatchCell
{
    GlobalIndex id { 0 };                    /**< global cell id */
    CellShape shape { CellShape::Triangle }; /**< shape */
    std::array<std::int64_t, 8> nodes {};    /**< global node ids */
    std::array<Point, 8> points {};          /**< node coordinates */
};

/**
 * @brief Some cells of a mesh (one rank's, or all of them) with the finite-volume geometry the
 * heat solver needs: volume (area in 2-D), centroid, and per face, in the shape's fixed face
 * order, the neighbour's global id (-1 on the boundary) and the diffusion coefficient
 * |face| / distance (centroid to neighbour centroid, or to the face centre on the boundary).
 *
 * Built from a patch: the cells to keep plus their face neighbours. Every quantity of a cell
 * is computed from its own nodes and its neighbours' nodes only, in a fixed order, so a cell
 * has bitwise the same geometry whichever patch it was built from: the mesh is the same on
 * any number of ranks.
 *
 * The nodes are held once each, in a table of the piece (global id and coordinates, ascending
 * by id); a cell lists its nodes as positions in that table (4 bytes a corner, where a
 * coordinate per corner took 24: doc/notes/scaling.md, "Memory per cell").
 */
class MeshPiece
{
public:
    /** @brief An empty piece. */
    MeshPiece() = default;

    /**
     * @brief Keeps the cells of @p patch whose ids are in @p ownedIds (ascending), in that
     * order; the other patch cells only supply neighbours.
     * @throws Error for a missing owned cell, a face shared by more than two cells or a cell
     * of zero volume.
     */
    MeshPiece(std::span<const PatchCell> patch, std::span<const GlobalIndex> ownedIds);

    /** @brief Number of cells kept. */
    [[nodiscard]] std::size_t nCells() const noexcept { return ids_.size(); }

    /** @brief Global ids of the cells, ascending. */
    [[nodiscard]] std::span<const GlobalIndex> ids() const noexcept { return ids_; }

    /** @brief Shape of cell @p i. */
    [[nodiscard]] CellShape shape(std::size_t i) const { return shapes_[i]; }

    /** @brief Volume (area in 2-D) of cell @p i. */
    [[nodiscard]] double volume(std::size_t i) const { return volume_[i]; }

    /** @brief Volumes (areas in 2-D) of the cells. */
    [[nodiscard]] std::span<const double> volumes() const noexcept { return volume_; }

    /** @brief Centroid (mean of the nodes) of cell @p i. */
    [[nodiscard]] const Point& centroid(std::size_t i) const { return centroid_[i]; }

    /** @brief CSR offsets into the face arrays, size nCells()+1. */
    [[nodiscard]] std::span<const std::size_t> faceOffsets() const noexcept { return faceOffsets_; }

    /** @brief Neighbour global id of each face (-1 on the boundary). */
    [[nodiscard]] std::span<const GlobalIndex> faceNeighbours() const noexcept
    {
        return faceNeighbour_;
    }

    /** @brief |face| / distance of each face. */
    [[nodiscard]] std::span<const double> faceCoefficients() const noexcept
    {
        return faceCoefficient_;
    }

    /**
     * @brief The nodes of cell @p i (nodeCount(shape(i)) of them, in the shape's node order) as
     * positions in nodeIds() and nodePoints().
     */
    [[nodiscard]] std::span<const std::uint32_t> cellNodes(std::size_t i) const
    {
        return { cellNodes_.data() + nodeOffsets_[i], nodeOffsets_[i + 1] - nodeOffsets_[i] };
    }

    /** @brief Global ids of the nodes of the cells, each once, ascending. */
    [[nodiscard]] std::span<const std::int64_t> nodeIds() const noexcept { return nodeIds_; }

    /** @brief Coordinates of the nodes, in the order of nodeIds(). */
    [[nodiscard]] std::span<const Point> nodePoints() const noexcept { return nodePoints_; }

    /** @brief The cells' graph: face neighbours in face order, boundary faces left out. */
    [[nodiscard]] CellGraph graph() const;

    /**
     * @brief Reserves room for @p cells cells with @p faces faces and @p corners cell nodes in
     * all (nodes of several cells counted for each).
     */
    void reserve(std::size_t cells, std::size_t faces, std::size_t corners);

    /**
     * @brief Appends the cells of @p other, whose ids must all exceed this piece's (a piece made
     * in chunks of ascending ids); their nodes join the node table, each once.
     * @throws Error when the ids would not be ascending, or a node of both pieces has two
     * positions.
     */
    void append(const MeshPiece& other);

    /** @brief Frees the node table's spare room (the number of nodes is known only at the end). */
    void shrinkToFit();

    /** @brief Bytes held by this piece's arrays. */
    [[nodiscard]] std::size_t memoryBytes() const noexcept;

private:
    std::vector<GlobalIndex> ids_;               /**< global ids, ascending */
    std::vector<CellShape> shapes_;              /**< shape per cell */
    std::vector<double> volume_;                 /**< volume per cell */
    std::vector<Point> centroid_;                /**< centroid per cell */
    std::vector<std::size_t> faceOffsets_ { 0 }; /**< CSR offsets of the faces */
    std::vector<GlobalIndex> faceNeighbour_;     /**< neighbour per face or -1 */
    std::vector<double> faceCoefficient_;        /**< |face| / distance per face */
    std::vector<std::size_t> nodeOffsets_ { 0 }; /**< CSR offsets of the cells' nodes */
    std::vector<std::uint32_t> cellNodes_;       /**< per cell: positions in the node table */
    std::vector<std::int64_t> nodeIds_;          /**< node table: global ids, ascending */
    std::vector<Point> nodePoints_;              /**< node table: coordinates */
};

} // namespace fieldsync::heat
