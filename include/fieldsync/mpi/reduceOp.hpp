// SPDX-License-Identifier: MIT
#pragma once

#include <mpi.h>

namespace fieldsync::mpi
{

/**
 * @brief Reduction operations. The seed's upper-case spellings (ReduceOp::SUM, ...) are
 * aliases of the PascalCase values, so code written either way compiles.
 */
enum class ReduceOp
{
    Sum,    /**< MPI_SUM */
    Prod,   /**< MPI_PROD */
    Min,    /**< MPI_MIN */
    Max,    /**< MPI_MAX */
    LAnd,   /**< MPI_LAND */
    LOr,    /**< MPI_LOR */
    LXor,   /**< MPI_LXOR */
    BAnd,   /**< MPI_BAND */
    BOr,    /**< MPI_BOR */
    BXor,   /**< MPI_BXOR */
    MinLoc, /**< MPI_MINLOC, on ValueIndex<T> */
    MaxLoc, /**< MPI_MAXLOC, on ValueIndex<T> */
    // the seed's spelling
    SUM = Sum,       /**< alias of Sum */
    PROD = Prod,     /**< alias of Prod */
    MIN = Min,       /**< alias of Min */
    MAX = Max,       /**< alias of Max */
    LAND = LAnd,     /**< alias of LAnd */
    LOR = LOr,       /**< alias of LOr */
    LXOR = LXor,     /**< alias of LXor */
    BAND = BAnd,     /**< alias of BAnd */
    BOR = BOr,       /**< alias of BOr */
    BXOR = BXor,     /**< alias of BXor */
    MINLOC = MinLoc, /**< alias of MinLoc */
    MAXLOC = MaxLoc  /**< alias of MaxLoc */
};

/** @brief The MPI_Op of a ReduceOp (the seed's getOp). */
[[nodiscard]] MPI_Op getOp(ReduceOp op) noexcept;

/** @brief The name of a ReduceOp ("Sum", ...), for messages. */
[[nodiscard]] const char* toString(ReduceOp op) noexcept;

} // namespace fieldsync::mpi
