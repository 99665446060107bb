// SPDX-License-Identifier: MIT
#pragma once

#include "fieldsync/core/error.hpp"
#include "fieldsync/mpi/reduceOp.hpp"

#include <source_location>

namespace fieldsync::halo
{

/** @brief How a reverse exchange combines the values sent back with the owner's value. */
enum class ReverseOp
{
    Sum,    /**< owner += ghost value (each neighbour in ascending rank order) */
    Max,    /**< owner = max(owner, ghost value) */
    Min,    /**< owner = min(owner, ghost value) */
    Replace /**< owner = ghost value */
};

/** @brief The name of a ReverseOp, for messages. */
[[nodiscard]] const char* toString(ReverseOp op) noexcept;

using fieldsync::toString; // the core overloads (call sites) stay visible here

/**
 * @brief The ReverseOp of mpi::ReduceOp Sum, Max or Min.
 * @throws Error naming @p where for any other ReduceOp.
 */
[[nodiscard]] ReverseOp
toReverseOp(mpi::ReduceOp op, std::source_location where = std::source_location::current());

} // namespace fieldsync::halo
