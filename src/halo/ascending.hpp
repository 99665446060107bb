// SPDX-License-Identifier: MIT
// Internal: the set-up's fast check that a list of cells holds none twice.
#pragma once

#include "fieldsync/core/localIndex.hpp"

#include <cstddef>
#include <span>

namespace fieldsync::halo
{

/**
 * @brief Whether @p cells are strictly ascending, so that none is listed twice: one pass without
 * a branch per cell (the compiler vectorises it), before the set-up's general checks, which the
 * usual lists (ghosts numbered in order, an owner's cells in order) then skip.
 */
[[nodiscard]] inline bool strictlyAscending(std::span<const LocalIndex> cells) noexcept
{
    unsigned ascending { 1 };
    for (std::size_t i { 1 }; i < cells.size(); ++i)
    {
        ascending &= static_cast<unsigned>(cells[i - 1] < cells[i]);
    }
    return ascending != 0;
}

} // namespace fieldsync::halo
