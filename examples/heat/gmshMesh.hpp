// SPDX-License-Identifier: MIT
#pragma once

#include "meshSource.hpp"

#include "fieldsync/mpi/mpiEnvironment.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <mpi.h>

namespace fieldsync::heat
{

/**
 * @brief A Gmsh 4.1 ASCII mesh (its 3-node triangles) read in parallel, as a MeshSource: no
 * rank reads or holds the whole file.
 *
 * Rank 0 finds where the $Nodes and $Elements data lie with a cheap scan (GmshScan: headers
 * parsed, data lines only counted) and broadcasts the block table. Each rank then seeks to its
 * share of the bytes of the triangle lines and of the node tag and coordinate lines, parses
 * only those, and the pieces meet through sparse exchanges (mpi::sparseExchange): node tags
 * meet their coordinates, nodes go to a directory rank by tag, each rank fetches the
 * coordinates of the nodes its triangles use, and triangle edges meet at a directory rank to
 * find the neighbours across ranks. Memory per rank is O(cells/P + nodes/P + P).
 *
 * Cell ids are the triangles' order in the file, as TriMesh (the serial reader) numbers them,
 * so a cell has bitwise the same geometry from either reader. Global node ids in the pieces
 * are the Gmsh node tags (TriMesh uses node positions; the geometry is the same).
 *
 * piece() is collective here: every rank of the communicator calls it together (as
 * solveDistributed() does); a serial reference run needs TriMesh.
 */
class GmshMesh : public MeshSource
{
public:
    /**
     * @brief Collective: reads @p path on the ranks of @p env.
     * @throws Error on every rank, naming the file and the line or block: what GmshScan
     * refuses, a bad node or triangle line, a node tag no node has, an edge of more than two
     * triangles.
     */
    GmshMesh(const mpi::MPIEnvironment& env, const std::string& path);

    /** @brief Frees the private communicator. */
    ~GmshMesh() override;

    GmshMesh(const GmshMesh&) = delete;            /**< not copyable (owns a communicator) */
    GmshMesh& operator=(const GmshMesh&) = delete; /**< not copyable */

    [[nodiscard]] GlobalIndex nCells() const override { return nCells_; }
    [[nodiscard]] std::string describe() const override;

    /**
     * @brief Collective: the cells @p ids (ascending) with their geometry, fetched from the
     * ranks that read them, with their neighbours (two request-reply rounds).
     * @throws Error on every rank for an id outside the mesh.
     */
    [[nodiscard]] MeshPiece piece(std::span<const GlobalIndex> ids) const override;

    /** @brief The first cell id this rank read; the rank read [firstCell(), +heldCells()). */
    [[nodiscard]] GlobalIndex firstCell() const noexcept;

    /** @brief Number of cells this rank read and holds. */
    [[nodiscard]] std::size_t heldCells() const noexcept { return cells_.size(); }

    /** @brief Gmsh node tags of held cell @p i (0 .. heldCells()-1). */
    [[nodiscard]] const std::array<std::int64_t, 3>& heldTags(std::size_t i) const
    {
        return cells_[i].tags;
    }

    /** @brief Node coordinates (z = 0) of held cell @p i. */
    [[nodiscard]] const std::array<Point, 3>& heldPoints(std::size_t i) const
    {
        return cells_[i].points;
    }

    /** @brief Neighbour across each edge (nodes k, k+1) of held cell @p i, or -1. */
    [[nodiscard]] const std::array<GlobalIndex, 3>& heldNeighbours(std::size_t i) const
    {
        return cells_[i].neighbours;
    }

    /** @brief One triangle as this rank holds it. */
    struct Cell
    {
        std::array<std::int64_t, 3> tags {};      /**< Gmsh node tags */
        std::array<Point, 3> points {};           /**< node coordinates */
        std::array<GlobalIndex, 3> neighbours {}; /**< across edge k (nodes k, k+1), or -1 */
    };

private:
    /** @brief The rank that read cell @p id. */
    [[nodiscard]] int holder(GlobalIndex id) const;

    /** @brief Collective: the held records of @p ids (ascending, unique) from their holders. */
    [[nodiscard]] std::vector<PatchCell>
    fetch(std::span<const GlobalIndex> ids, std::vector<GlobalIndex>* neighbours) const;

    MPI_Comm comm_ { MPI_COMM_NULL }; /**< private duplicate for the exchanges */
    int rank_ { 0 };                  /**< this rank */
    std::string path_;                /**< the file */
    GlobalIndex nCells_ { 0 };        /**< triangles in the file */
    std::vector<GlobalIndex> firsts_; /**< first cell id each rank read, then nCells_ */
    std::vector<Cell> cells_;         /**< the cells this rank read */
};

} // namespace fieldsync::heat
