// SPDX-License-Identifier: MIT
#pragma once

#include "meshPiece.hpp"

#include <span>
#include <string>

namespace fieldsync::heat
{

/**
 * @brief Where a mesh comes from: hands out any set of its cells with their geometry, touching
 * only those cells and their neighbours, so that each rank can make just its own part.
 *
 * Global cell ids are 0 .. nCells()-1. A contiguous range of ids is a compact slab of the mesh
 * for the generated meshes (ids run along x, then y, then z), which is what each rank makes
 * before the mesh is partitioned.
 */
class MeshSource
{
public:
    /** @brief Virtual, for the derived sources. */
    virtual ~MeshSource() = default;

    /** @brief Number of cells of the whole mesh. */
    [[nodiscard]] virtual GlobalIndex nCells() const = 0;

    /** @brief One line saying what the mesh is (for the program's header). */
    [[nodiscard]] virtual std::string describe() const = 0;

    /**
     * @brief The cells @p ids (ascending) with their geometry. Cost and memory are of the order
     * of the number of ids (plus their neighbours), never of the whole mesh. Collective for a
     * distributed source (GmshMesh): every rank calls it together.
     */
    [[nodiscard]] virtual MeshPiece piece(std::span<const GlobalIndex> ids) const = 0;

    /** @brief The slab of ids rank @p rank of @p nRanks makes: [begin, end). */
    [[nodiscard]] std::pair<GlobalIndex, GlobalIndex> slab(int rank, int nRanks) const
    {
        const GlobalIndex n { nCells() };
        return { n * rank / nRanks, n * (rank + 1) / nRanks };
    }
};

} // namespace fieldsync::heat
